package main

// The hand-wired host creates the default provider, then a, then b (which
// needs a's ID).
func Example() {
	main()
	// Output:
	// create  urn:pulumi:dev::wiring::pulumi:providers:demo::default
	// create  urn:pulumi:dev::wiring::demo:index:Thing::a
	// create  urn:pulumi:dev::wiring::demo:index:Thing::b
}
