package grpcserver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
)

// callbacks holds the connections to the Callbacks services of the
// programs the server serves: an SDK that registers a transform or a hook
// runs a Callbacks server of its own and names it, with a token, in a
// pulumirpc.Callback. One connection per target is opened on first use and
// closed when the server stops.
type callbacks struct {
	mu     sync.Mutex
	closed bool
	conns  map[string]*grpc.ClientConn
}

func newCallbacks() *callbacks { return &callbacks{conns: map[string]*grpc.ClientConn{}} }

var errCallbacksClosed = errors.New("the program's callbacks can no longer be called: the deployment's gRPC server has stopped")

// client returns a client of the Callbacks service at target.
func (c *callbacks) client(target string) (pulumirpc.CallbacksClient, error) {
	if target == "" {
		return nil, errors.New("the callback names no target (the address of the program's callback server)")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errCallbacksClosed
	}
	conn, ok := c.conns[target]
	if !ok {
		var err error
		conn, err = grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessageSize), grpc.MaxCallSendMsgSize(maxMessageSize)))
		if err != nil {
			return nil, fmt.Errorf("connecting to the program's callback server at %s: %w", target, err)
		}
		c.conns[target] = conn
	}
	return pulumirpc.NewCallbacksClient(conn), nil
}

// call invokes the callback cb with req and reads its answer into resp.
func (c *callbacks) call(ctx context.Context, cb *pulumirpc.Callback, req, resp proto.Message) error {
	if cb == nil {
		return errors.New("no callback given")
	}
	client, err := c.client(cb.GetTarget())
	if err != nil {
		return err
	}
	in, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	out, err := client.Invoke(ctx, &pulumirpc.CallbackInvokeRequest{Token: cb.GetToken(), Request: in})
	if err != nil {
		return err
	}
	if err := proto.Unmarshal(out.GetResponse(), resp); err != nil {
		return fmt.Errorf("reading the program's answer: %w", err)
	}
	return nil
}

// close closes every connection; later calls fail.
func (c *callbacks) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for _, conn := range c.conns {
		errs = append(errs, conn.Close())
	}
	clear(c.conns)
	return errors.Join(errs...)
}
