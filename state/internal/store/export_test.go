package store

// The tests of package store_test reach these through their exported
// names.
var (
	Hostname     = hostname
	ProcessAlive = processAlive
	ProcessSpace = processSpace
	ProcessStart = processStart
)
