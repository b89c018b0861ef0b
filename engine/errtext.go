package engine

import (
	"strings"

	"github.com/groundwork-iac/groundwork/resource"
)

// aboutResource is the text of err, an error about the resource urn,
// naming the resource once: as err's text names it when it does (a typed
// error such as *ProtectedError names its resource, since it is also read
// alone), and prefixed with the URN when it does not (a provider's failure,
// which the step generator reports without the resource; see
// stepgen.Apply).
func aboutResource(urn resource.URN, err error) string {
	msg := err.Error()
	if urn == "" || strings.Contains(msg, string(urn)) {
		return msg
	}
	return string(urn) + ": " + msg
}
