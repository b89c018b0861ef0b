module github.com/groundwork-iac/groundwork/interop

go 1.26

replace github.com/groundwork-iac/groundwork => ../

require (
	github.com/google/go-cmp v0.7.0
	github.com/groundwork-iac/groundwork v0.0.0-00010101000000-000000000000
)

require (
	github.com/hashicorp/errwrap v1.1.0 // indirect
	github.com/hashicorp/go-multierror v1.1.1 // indirect
	github.com/pulumi/pulumi/sdk/v3 v3.220.0 // indirect
	golang.org/x/net v0.49.0 // indirect
	golang.org/x/sys v0.40.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20250115164207-1a7da9e5054f // indirect
	google.golang.org/grpc v1.71.1 // indirect
	google.golang.org/protobuf v1.36.6 // indirect
)
