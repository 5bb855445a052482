package jsontree

import (
	"encoding/json"
	"strings"
	"testing"
)

func upper(s string) string { return strings.ToUpper(s) }

// A secret may stand in any string of a model's arguments, a key too; the
// numbers keep their digits, and the document stays valid JSON.
func TestMapStringsMapsKeysAndValues(t *testing.T) {
	doc := json.RawMessage(`{"path":"a.go","n":12345678901234567890,"list":["x",{"k":"<b>"}]}`)
	got := MapStrings(doc, upper)
	var v map[string]any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("not JSON: %s", got)
	}
	for _, want := range []string{`"PATH":"A.GO"`, `12345678901234567890`, `"K":"<B>"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
}

// A document that is not JSON, or has text after its value, is one string:
// nothing in it escapes f.
func TestMapStringsOfNotJSON(t *testing.T) {
	for _, doc := range []string{`not json`, `{"a":"b"} trailing secret`} {
		got := MapStrings(json.RawMessage(doc), upper)
		var s string
		if err := json.Unmarshal(got, &s); err != nil || s != strings.ToUpper(doc) {
			t.Errorf("%s: got %s", doc, got)
		}
	}
}

// A document f leaves as it is comes back byte for byte.
func TestMapStringsKeepsAnUnchangedDocument(t *testing.T) {
	doc := json.RawMessage(`{ "a" : 1.50 }`)
	if got := MapStrings(doc, func(s string) string { return s }); string(got) != string(doc) {
		t.Errorf("got %s", got)
	}
}

// Copy leaves its argument as it was; Walk changes it in place.
func TestCopyAndWalk(t *testing.T) {
	v, err := Decode([]byte(`{"a":["x","y"]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := Copy(v, func(string) string { return "" })
	if string(Marshal(v)) != `{"a":["x","y"]}` || string(Marshal(c)) != `{"a":["",""]}` {
		t.Errorf("copy %s of %s", Marshal(c), Marshal(v))
	}
	var seen []string
	Walk(v, func(s string) string { seen = append(seen, s); return s + "!" })
	if strings.Join(seen, ",") != "x,y" || string(Marshal(v)) != `{"a":["x!","y!"]}` {
		t.Errorf("walk saw %v, left %s", seen, Marshal(v))
	}
}
