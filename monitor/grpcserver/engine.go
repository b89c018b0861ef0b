package grpcserver

import (
	"context"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/groundwork-iac/groundwork/resource"
)

// engineService serves the Engine service: the program's log, and the
// root resource it records for itself.
type engineService struct {
	pulumirpc.UnimplementedEngineServer
	log func(LogMessage)

	mu   sync.Mutex
	root string
}

func newEngine(cfg Config) *engineService { return &engineService{log: cfg.Log} }

// severities maps the protocol's severities; an unknown one reads as info.
var severities = map[pulumirpc.LogSeverity]Severity{
	pulumirpc.LogSeverity_DEBUG:   SeverityDebug,
	pulumirpc.LogSeverity_INFO:    SeverityInfo,
	pulumirpc.LogSeverity_WARNING: SeverityWarning,
	pulumirpc.LogSeverity_ERROR:   SeverityError,
}

// Log passes a message of the program on to Config.Log.
func (e *engineService) Log(_ context.Context, req *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	if e.log != nil {
		sev, ok := severities[req.GetSeverity()]
		if !ok {
			sev = SeverityInfo
		}
		e.log(LogMessage{Severity: sev, URN: resource.URN(req.GetUrn()), Message: req.GetMessage(), Ephemeral: req.GetEphemeral()})
	}
	return &emptypb.Empty{}, nil
}

// GetRootResource returns the URN SetRootResource recorded ("" before).
func (e *engineService) GetRootResource(context.Context, *pulumirpc.GetRootResourceRequest) (*pulumirpc.GetRootResourceResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return &pulumirpc.GetRootResourceResponse{Urn: e.root}, nil
}

// SetRootResource records the URN of the program's root resource.
func (e *engineService) SetRootResource(_ context.Context, req *pulumirpc.SetRootResourceRequest) (*pulumirpc.SetRootResourceResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.root = req.GetUrn()
	return &pulumirpc.SetRootResourceResponse{}, nil
}
