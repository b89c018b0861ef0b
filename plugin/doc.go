// Package plugin runs provider plugins — binaries named
// "pulumi-resource-<package>" that speak the Pulumi provider gRPC protocol,
// whether Pulumi's own providers or ones built with package plugin/server —
// and presents each as a providers.Provider.
//
// # Finding a plugin
//
// Find looks for the binary in the configured plugin folders, in order: in
// each folder itself, then in its versioned subfolders
// ("resource-<package>-v<version>/", the layout of Pulumi's plugin cache),
// newest first, passing over one still being installed; and then on PATH.
// Resolver and Launch also search Options.PluginCache, Pulumi's plugin
// cache (PulumiPluginCache: $PULUMI_HOME/plugins or ~/.pulumi/plugins,
// where `pulumi plugin install` puts plugins), after the folders and
// before PATH. Resolver does so on behalf of a providers.Registry (see
// providers.WithResolver), choosing a binary whose version is compatible
// with the one wanted; Factory makes a providers.Factory that launches a
// named plugin.
//
// # Launching and the port handshake
//
// Launch and Start run the binary with Options.Args and then the engine's
// address as its last argument (omitted when there is none), in
// Options.Dir, with the stack's project, configuration and runtime options
// in its environment as Pulumi's engine gives them (PULUMI_PROJECT,
// PULUMI_CONFIG, PULUMI_RUNTIME_<NAME>; see Options). The plugin
// listens on a free local port and prints its number as a line on stdout;
// the client reads stdout until a line is a port number (earlier lines are
// diagnostics), connects to 127.0.0.1 on that port without TLS, and calls
// Handshake (a plugin that predates it answers Unimplemented, which is
// fine) and GetPluginInfo for its version. Stderr lines and the stdout
// lines other than the port go to Options.Diagnostics, and the last twenty
// stderr lines are kept for error messages, each masked with
// Options.Secrets first. Until the plugin has started, its lines are
// held: a plugin that fails to start is reported by its error, which
// quotes the end of its stderr, and only what that error does not quote
// goes to Options.Diagnostics; one that starts has them passed on then.
//
// # Calls
//
// Each method of the Provider is one RPC. Values cross the wire in the form
// package wire defines; what the plugin says it does not accept (in its
// Handshake and Configure answers) is degraded before it is sent, and an
// output of a plugin that does not accept secrets is marked secret again
// when its input was. Configure sends the configuration both structured and
// as legacy "<package>:config:<key>" strings. Errors keep their meaning:
// codes.Unimplemented wraps providers.ErrNotImplemented (so the providers
// package functions apply their fallbacks); a partial failure
// (an ErrorResourceInitFailed status detail) is a *providers.InitError; the
// caller's cancelled context is its context error; anything else is a
// *CallError.
//
// Construct and Call make the plugin call back into the engine to register
// the component's children, so they need the address of the engine's
// resource monitor gRPC server: the request's Host must implement
// MonitorHost. Without one they fail with ErrNoMonitor.
//
// # Crashes and shutdown
//
// A plugin runs as the leader of a process group of its own, so that
// whatever it starts (a shell script's node, say) is ended with it. A
// waiter goroutine watches the process. If it exits, every call in flight
// is cancelled at once and fails, as does every later call, with an error
// wrapping an *ExitError that names the plugin and quotes the end of its
// stderr: a dead plugin never hangs a deployment. What it left running in
// its group gets SIGTERM, and SIGKILL after Options.GracePeriod. Close
// closes the connection (ending calls in flight), sends the group SIGTERM,
// waits up to Options.GracePeriod for all of it to exit, kills what is
// left otherwise, and returns once the processes and the goroutines
// watching them have ended. On Linux the group also ends when this
// process is killed and can end nothing itself: the plugin gets SIGKILL
// as its parent-death signal, and a watchdog process in its group kills
// the rest.
package plugin
