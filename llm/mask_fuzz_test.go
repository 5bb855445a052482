package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/internal/redact"
)

// maskFuzzCred is registered as a credential gh-ocdx holds.
const maskFuzzCred = "maskfuzzcredential0123"

// FuzzMaskRequest: whatever a request holds, the masked request carries no
// registered credential and no secret in any part, tool arguments that were
// JSON stay JSON, and the caller's request is left as it was.
func FuzzMaskRequest(f *testing.F) {
	for _, s := range [][2]string{
		{"plain", `{"path":"a.go"}`},
		{"+token = \"ghp_abcdefghijklmnopqrstuvwxyz0123456789\"", `{"why":"x` + maskFuzzCred + `y"}`},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", `["PASSWORD=hunter2hunter2", 1, null]`},
		{maskFuzzCred, `not json ` + maskFuzzCred},
		{"key", `{"` + maskFuzzCred + `": {"ghp_abcdefghijklmnop": 1}}`},
	} {
		f.Add(s[0], s[1])
	}
	redact.Register(maskFuzzCred)
	f.Fuzz(func(t *testing.T, text, args string) {
		req := Request{System: text, Messages: []Message{
			{Role: User, Text: text, Note: text},
			{Role: Assistant, Calls: []ToolCall{{ID: "c1", Name: "read_file", Args: json.RawMessage(args)}}},
			{Role: User, Results: []ToolResult{{CallID: "c1", Content: text}}},
		}}
		out := maskRequest(req)
		if req.Messages[0].Text != text || string(req.Messages[1].Calls[0].Args) != args {
			t.Fatal("the caller's request was changed")
		}
		parts := []string{out.System, out.Messages[0].Text, out.Messages[0].Note, out.Messages[2].Results[0].Content}
		for _, p := range parts {
			if strings.Contains(p, maskFuzzCred) || len(redact.Find(p)) > 0 {
				t.Fatalf("a secret survived: %q", p)
			}
		}
		got := out.Messages[1].Calls[0].Args
		if json.Valid([]byte(args)) && !json.Valid(got) {
			t.Fatalf("arguments stopped being JSON: %q -> %q", args, got)
		}
		if strings.Contains(string(got), maskFuzzCred) {
			t.Fatalf("a credential survived in the arguments: %q", got)
		}
	})
}
