package state

import (
	"encoding/binary"
	"errors"
	"time"
)

// The index's rows are written in a compact binary form, not JSON: state
// show decodes 10,000 of them, and encoding/json took most of its time
// (docs/architecture.md, State). A shard is rowFormat, then its
// rows one after the other.
const rowFormat = 1

var errRow = errors.New("malformed index row")

func encodeRows(rows []indexRow) []byte {
	b := []byte{rowFormat}
	for _, r := range rows {
		b = appendString(b, r.Key)
		b = binary.AppendUvarint(b, uint64(r.Runs))
		b = binary.AppendUvarint(b, uint64(r.Rounds))
		b = binary.AppendUvarint(b, uint64(r.Stuck))
		b = appendString(b, r.WIP)
		var flags byte
		if r.Leased {
			flags |= 1
		}
		if r.Last != nil {
			flags |= 2
			if r.Last.Compacted {
				flags |= 4
			}
		}
		b = append(b, flags)
		if l := r.Last; l != nil {
			b = appendString(b, l.ID)
			b = appendString(b, l.Kind)
			b = appendTime(b, l.Started)
			b = appendTime(b, l.Ended)
			b = appendString(b, string(l.Outcome))
			b = appendString(b, l.Reason)
			b = binary.AppendUvarint(b, uint64(l.Resumes))
			b = appendString(b, l.Source)
		}
	}
	return b
}

func decodeRows(b []byte) ([]indexRow, error) { return appendRows(nil, b) }

// appendRows appends the rows of the shard b to rows.
func appendRows(rows []indexRow, b []byte) ([]indexRow, error) {
	if len(b) == 0 || b[0] != rowFormat {
		return rows, errRow
	}
	d := decoder{b: b[1:]}
	for len(d.b) > 0 && d.err == nil {
		r := indexRow{Key: d.string(), Runs: d.int(), Rounds: d.int(), Stuck: d.int(), WIP: d.string()}
		flags := d.byte()
		r.Leased = flags&1 != 0
		if flags&2 != 0 {
			r.Last = &Run{ID: d.string(), Kind: d.string(), Started: d.time(), Ended: d.time(), Outcome: RunOutcome(d.string()),
				Reason: d.string(), Resumes: d.int(), Source: d.string(), Compacted: flags&4 != 0}
		}
		rows = append(rows, r)
	}
	return rows, d.err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendTime keeps the instant and its zone offset, as JSON would.
func appendTime(b []byte, t time.Time) []byte {
	raw, err := t.MarshalBinary()
	if err != nil { // a year or an offset MarshalBinary cannot hold
		raw, _ = t.UTC().MarshalBinary()
	}
	return appendString(b, string(raw))
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errRow
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v := d.uvarint()
	if v > 1<<31 {
		d.err = errRow
	}
	return int(v)
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errRow
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errRow
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) time() time.Time {
	raw := d.string()
	var t time.Time
	if d.err == nil && raw != "" {
		if err := t.UnmarshalBinary([]byte(raw)); err != nil {
			d.err = errRow
		}
	}
	return t
}
