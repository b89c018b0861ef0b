package deploy

import (
	"testing"

	"github.com/groundwork-iac/groundwork/providers"
	"github.com/groundwork-iac/groundwork/resource"
	"github.com/groundwork-iac/groundwork/stepgen"
)

// BenchmarkCallSecrets measures what learning and masking the secrets of
// one Check (and the Diff after it) costs when nothing is secret: four
// small string inputs, echoed by the Check.
func BenchmarkCallSecrets(b *testing.B) {
	h := &Host{cfg: Config{Secrets: &resource.SecretFilter{}}}
	news := resource.PropertyMap{
		"alpha": resource.NewString("a-r1"), "beta": resource.NewString("b-r1"),
		"gamma": resource.NewString("c"), "delta": resource.NewString("d"),
	}
	c := &stepgen.Call{Kind: stepgen.CallCheck, Check: providers.CheckRequest{News: news}, DiffAfterCheck: true}
	b.ReportAllocs()
	for b.Loop() {
		h.learnCall(c)
		a := stepgen.Answer{Call: c, Check: providers.CheckResponse{Inputs: news}, Diffed: true}
		h.maskAnswer(&a)
	}
}
