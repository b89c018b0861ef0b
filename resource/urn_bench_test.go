package resource_test

import (
	"testing"

	"github.com/groundwork-iac/groundwork/resource"
)

// BenchmarkParseURN parses the URN of a resource with a parent type, the
// form the engine parses for every provider reference and dependency.
func BenchmarkParseURN(b *testing.B) {
	const urn = "urn:pulumi:dev::website::aws:s3/bucket:Bucket$aws:s3/bucketObject:BucketObject::index.html"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := resource.ParseURN(urn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkURNName reads the name of a URN, which the engine does for
// events and step records.
func BenchmarkURNName(b *testing.B) {
	const urn = resource.URN("urn:pulumi:dev::website::aws:s3/bucket:Bucket::site")
	b.ReportAllocs()
	for b.Loop() {
		if urn.Name() != "site" {
			b.Fatal("wrong name")
		}
	}
}
