package display

import (
	"time"

	"github.com/groundwork-iac/groundwork/engine"
	"github.com/groundwork-iac/groundwork/resource"
)

// The scripted operation the golden tests render: every kind of step, a
// failure and what it skips, diagnostics, and secrets the engine did not
// mask (the renderer must).

const thing = "test:index:Thing"

func urn(typ, name string) resource.URN { return resource.NewURN("dev", "web", "", typ, name) }

func str(s string) resource.PropertyValue { return resource.NewString(s) }

func num(n float64) resource.PropertyValue { return resource.NewNumber(n) }

func obj(m resource.PropertyMap) resource.PropertyValue { return resource.NewObject(m) }

func secret(v resource.PropertyValue) resource.PropertyValue { return resource.NewSecret(v) }

// step builds a step's description.
func step(op engine.StepOp, typ, name string, preview bool, olds, news resource.PropertyMap) engine.StepEvent {
	return engine.StepEvent{Op: op, URN: urn(typ, name), Type: typ, Preview: preview, OldInputs: olds, NewInputs: news}
}

// ran is a step that starts and succeeds.
func ran(ev engine.StepEvent, took time.Duration, outs resource.PropertyMap) []engine.Event {
	return []engine.Event{engine.StepStartEvent{StepEvent: ev}, engine.StepDoneEvent{StepEvent: ev, Duration: took, Outputs: outs}}
}

// script is an update (or its preview) of a stack of things.
func script(preview bool) []engine.Event {
	op := engine.OpUp
	if preview {
		op = engine.OpPreview
	}
	ms := func(n int) time.Duration {
		if preview {
			return time.Duration(n) * time.Microsecond
		}
		return time.Duration(n) * time.Millisecond
	}
	var evs []engine.Event
	add := func(e ...engine.Event) { evs = append(evs, e...) }

	add(engine.OperationStartEvent{Operation: op, Project: "web", Stack: "dev", Time: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)})
	add(ran(step(engine.StepSame, resource.RootStackType, "web-dev", preview, nil, nil), ms(1), nil)...)
	add(ran(step(engine.StepCreate, "pulumi:providers:test", "default", preview, nil, nil), ms(2), nil)...)

	// A create whose inputs hold a secret the engine left in plaintext.
	a := step(engine.StepCreate, thing, "a", preview, nil, resource.PropertyMap{
		"size": num(1), "password": secret(str("hunter2")),
	})
	add(ran(a, ms(12), resource.PropertyMap{"size": num(1), "password": secret(str("hunter2")), "id": str("a-1")})...)

	// An update without a detailed diff: the renderer compares inputs,
	// nested objects and arrays included.
	b := step(engine.StepUpdate, thing, "b", preview,
		resource.PropertyMap{"size": num(1), "tags": obj(resource.PropertyMap{"env": str("dev"), "team": str("web")}), "ports": resource.NewArray(num(80))},
		resource.PropertyMap{"size": num(2), "tags": obj(resource.PropertyMap{"env": str("prod"), "team": str("web")}), "ports": resource.NewArray(num(80), num(443))})
	b.Keys = []resource.PropertyKey{"ports", "size", "tags"}
	add(engine.StepStartEvent{StepEvent: b})
	add(engine.DiagnosticEvent{URN: b.URN, Severity: engine.SeverityWarning, Message: "disk almost full"})
	add(engine.StepDoneEvent{StepEvent: b, Duration: ms(30)})

	// A replacement: the marker, the new copy, and (after the program)
	// the old copy's deletion. The provider gave a detailed diff.
	olds := resource.PropertyMap{"region": str("us"), "name": str("c")}
	news := resource.PropertyMap{"region": str("eu"), "name": str("c")}
	mark := step(engine.StepReplace, thing, "c", preview, olds, olds)
	create := step(engine.StepCreateReplacement, thing, "c", preview, olds, news)
	for _, s := range []*engine.StepEvent{&mark, &create} {
		s.Keys = []resource.PropertyKey{"region"}
		s.Diff = map[string]resource.PropertyDiff{"region": {Kind: resource.DiffUpdateReplace, InputDiff: true}}
	}
	add(ran(mark, 0, nil)...)
	add(ran(create, ms(40), nil)...)

	// A secret object changed inside: the renderer must not look in.
	s := step(engine.StepUpdate, thing, "s", preview,
		resource.PropertyMap{"config": secret(obj(resource.PropertyMap{"user": str("admin"), "pass": str("hunter1")}))},
		resource.PropertyMap{"config": secret(obj(resource.PropertyMap{"user": str("admin"), "pass": str("hunter2")}))})
	s.Keys = []resource.PropertyKey{"config"}
	add(ran(s, ms(7), nil)...)

	// A failure, and the resource that needed it, skipped: the messages
	// do not name their own resource, which the events do (the
	// operation's error names it once).
	bad := step(engine.StepCreate, thing, "bad", preview, nil, resource.PropertyMap{"size": num(99)})
	add(engine.StepStartEvent{StepEvent: bad})
	add(engine.StepFailedEvent{StepEvent: bad, Message: "create failed: quota exceeded\nrequested 99, limit 10", Duration: ms(5)})
	child := step(engine.StepCreate, thing, "child", preview, nil, resource.PropertyMap{"parent": str("bad")})
	add(engine.StepFailedEvent{StepEvent: child, Skipped: true, Message: `waits for test:index:Thing "bad", which did not succeed`})

	add(ran(step(engine.StepOutputs, resource.RootStackType, "web-dev", preview, nil, nil), 0, nil)...)
	add(ran(step(engine.StepDelete, thing, "old", preview, resource.PropertyMap{"size": num(3)}, nil), ms(9), nil)...)
	add(ran(step(engine.StepDeleteReplaced, thing, "c", preview, olds, nil), ms(8), nil)...)
	add(engine.DiagnosticEvent{Severity: engine.SeverityInfo, Message: "1 policy skipped"})
	add(engine.DiagnosticEvent{Severity: engine.SeverityDebug, Message: "debug chatter"})

	add(engine.SummaryEvent{
		Operation: op, Failed: 1, Duration: 1500 * time.Millisecond,
		// As the engine counts them: resources, not steps; the default
		// provider apart; the replacement once; bad failed, child skipped.
		Counts: map[engine.StepOp]int{
			engine.StepSame: 1, engine.StepCreate: 1, engine.StepUpdate: 2, engine.StepReplace: 1, engine.StepDelete: 1,
		},
		Error: string(bad.URN) + ": create failed: quota exceeded\nrequested 99, limit 10",
	})
	return evs
}
