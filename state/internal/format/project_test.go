package format

import (
	"testing"
)

func TestRecordedProject(t *testing.T) {
	const (
		stackRes = `{"urn":"urn:pulumi:dev::site::pulumi:pulumi:Stack::site-dev","type":"pulumi:pulumi:Stack"}`
		siteProv = `{"urn":"urn:pulumi:dev::site::pulumi:providers:local::default","type":"pulumi:providers:local","custom":true,"id":"p1"}`
		shopProv = `{"urn":"urn:pulumi:dev::shop::pulumi:providers:local::default","type":"pulumi:providers:local","custom":true,"id":"p1"}`
		// A property that looks like a URN of another project is a value,
		// not a record.
		siteFile = `{"urn":"urn:pulumi:dev::site::local:index:File::f","type":"local:index:File","inputs":{"urn":"urn:pulumi:dev::other::x:y:Z::q"}}`
	)
	snapshot := func(resources ...string) []byte {
		out := `{"version":2,"resources":[`
		for i, r := range resources {
			if i > 0 {
				out += ",\n"
			}
			out += r
		}
		return []byte(out + `],"mac":"crc32c:00000000"}` + "\n")
	}
	entry := func(tagged bool, payload string) []byte {
		if tagged {
			return AppendRecord(nil, RecordTaggedEntry, 1, append([]byte(payload), make([]byte, MACSize)...))
		}
		return AppendRecord(nil, RecordEntry, 1, []byte(payload))
	}
	header := AppendRecord(nil, RecordHeader, 0, []byte(`{"format":4,"base":"x","firstSeq":1}`))
	for _, tt := range []struct {
		name              string
		snapshot, journal []byte
		want              string
		ok                bool
	}{
		{"the stack resource", snapshot(siteProv, stackRes, siteFile), nil, "site", true},
		{"the stack resource wins over other records", snapshot(shopProv, stackRes), nil, "site", true},
		{"every record agrees", snapshot(siteProv, siteFile), nil, "site", true},
		{"records disagree", snapshot(siteProv, shopProv), nil, "", false},
		{"no records", snapshot(), nil, "", false},
		{"no records, a journal entry", snapshot(),
			append(header, entry(false, `{"kind":"begin","op":"creating","new":`+siteProv+`}`)...), "site", true},
		{"no records, a tagged journal entry", snapshot(),
			append(header, entry(true, `{"kind":"begin","op":"creating","new":`+shopProv+`}`)...), "shop", true},
		{"no snapshot, a journal", nil, append(header, entry(false, `{"kind":"write","new":`+siteProv+`}`)...), "site", true},
		{"the snapshot's records win over the journal's", snapshot(shopProv),
			append(header, entry(false, `{"kind":"write","new":`+siteProv+`}`)...), "shop", true},
		{"not JSON", []byte("{not json"), nil, "", false},
		{"an invalid URN", snapshot(`{"urn":"dev::site::x","type":"x"}`), nil, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RecordedProject(tt.snapshot, tt.journal)
			if got != tt.want || ok != tt.ok {
				t.Errorf("RecordedProject = %q, %t; want %q, %t", got, ok, tt.want, tt.ok)
			}
		})
	}
}
