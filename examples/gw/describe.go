package main

// describe is the text gw prints for an error.
func describe(err error, inv *invocation) string {
	return err.Error()
}
