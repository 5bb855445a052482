package llm

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSDKsNotLinked: the SDKs are for these tests only; the binary speaks
// the wire formats itself (DESIGN: 57 MB and 11 ms of every start).
func TestSDKsNotLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "..").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, mod := range []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go"} {
		if strings.Contains(string(out), mod) {
			t.Errorf("the binary links %s", mod)
		}
	}
}
