// Package display renders an engine's event stream for people and tools.
//
// A Renderer takes the events of engine.Config.OnEvent and writes them to
// an io.Writer in one of three modes:
//
//   - Interactive: a table with one row per resource, in the order the
//     resources first appear, redrawn in place at most ten times a second
//     while the operation runs. Each row shows what happens to the
//     resource (+ create, ~ update, +- replace, -+ replace that deletes
//     first, - delete, > read, <= import, ~> refresh, x discard, = same),
//     its type and name, its status (a spinner while a step runs, then
//     done, failed or skipped) and the time its steps took. A failure's
//     message, the resource's diagnostics and, when diffs are shown, its
//     property changes are printed under its row; the summary follows the
//     last frame. Rows are cut to the terminal's width.
//   - Plain: one line per event, no escape codes, for CI logs and pipes:
//     a step's start ("+ create  test:index:Thing  a  ...") and its end
//     ("+ create  test:index:Thing  a  (12ms)"), failures with their
//     message, diagnostics with their severity, and the summary. The three
//     steps of a replacement show as "++ create-replacement" and
//     "-- delete-replaced" (the replace marker, which does nothing, is not
//     shown). Previews show only ends, without times.
//   - JSON: each event as one JSON object per line, with a "type" field
//     ("operation-start", "step-start", "step-done", "step-failed",
//     "diagnostic", "outputs", "summary"), URNs as strings, durations in
//     milliseconds, and property maps as plain JSON.
//
// At the end of an update or a preview, the summary lists the stack's
// outputs ("Outputs:" and one "key: value" line each, sorted; in JSON an
// "outputs" event before the summary), secrets as [secret] and values a
// preview cannot know yet as [unknown].
//
// ModeAuto, the default, is Interactive when the writer is a terminal and
// Plain otherwise.
//
// Unchanged resources and the default providers the engine creates on its
// own are not shown (Options.ShowSames shows unchanged ones), and neither
// are components' output records. The summary shows the engine's counts
// (engine.SummaryEvent): resources by what happened to them, a
// replacement counting once, default providers apart, so that it agrees
// with engine.Result.Counts and every message.
//
// # Diffs
//
// In previews, updates and replacements list their property-level
// changes: "+ key: value" for an added property, "- key: value" for a
// removed one, "~ key: old → new" for a changed one, with nested paths
// such as "tags.env" or "ports[0]", and "(forces replacement)" where the
// provider says so. Options.ShowDiff shows them for every operation, and
// the inputs of created and deleted resources too.
//
// # Secrets
//
// The engine masks secrets before it builds an event; the renderer does
// not rely on it. A secret value prints as [secret] in every mode, whatever
// it holds, and a diff never looks inside one. (Messages of failures and
// diagnostics are text the renderer cannot interpret and are printed as
// they come.)
//
// # Lifetime
//
// One Renderer can follow several operations in turn. In interactive mode
// it owns one goroutine per running operation, started by the operation's
// OperationStartEvent and stopped, and waited for, by its SummaryEvent.
// Close stops it early (drawing the table a last time) and makes the
// Renderer ignore later events; call it when done, typically deferred.
package display
