package llm

import (
	"encoding/json"
	"fmt"
)

// ObjectSchema builds a tool's JSON Schema: an object with the given
// properties (a JSON object literal) and required names, and nothing else.
func ObjectSchema(properties string, required ...string) json.RawMessage {
	req, _ := json.Marshal(append([]string{}, required...))
	return json.RawMessage(`{"type":"object","properties":` + properties + `,"required":` + string(req) + `,"additionalProperties":false}`)
}

// DecodeArgs decodes a tool's arguments into v, with an error the model can
// act on.
func DecodeArgs(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}
