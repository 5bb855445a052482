package finding

import (
	"fmt"
	"testing"
)

func TestStatuses(t *testing.T) {
	var remaining []Status
	for _, s := range Statuses {
		if s.Remaining() {
			remaining = append(remaining, s)
		}
	}
	if fmt.Sprint(remaining) != "[open stuck disputed]" {
		t.Errorf("remaining: %v", remaining)
	}
}
