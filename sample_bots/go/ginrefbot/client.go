// Package ginrefbot connects a Go bot to the ginref referee (launch contract, Play stream,
// decision loop) and holds the card arithmetic the sample bots share.
//
// The message and service code (package ginrummyv1) is generated from
// proto/ginrummy/v1/ginrummy.proto by protoc with protoc-gen-go and protoc-gen-go-grpc at build
// time (sample_bots/go/build); it is never committed.
package ginrefbot

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	pb "github.com/ginref/ginref/gen/go/ginrummy/v1"
	"google.golang.org/grpc"
)

// Decide is a bot's policy: the action answering a request (normally an entry of LegalActions).
type Decide func(request *pb.DecisionRequest) *pb.Action

func formatFault(f *pb.Fault) string {
	kind := strings.TrimPrefix(f.GetKind().String(), "FAULT_KIND_")
	then := "the match is forfeited"
	if f.GetRetry() {
		then = "a new request follows"
	}
	return fmt.Sprintf("fault %s (%s) on request %d: %s -- %s",
		kind, f.GetRule(), f.GetRequestId(), f.GetMessage(), then)
}

// RunBot connects with GINREF_ADDRESS and GINREF_TOKEN, plays until the referee ends the
// stream and returns the process exit code: 0 the stream ended with status OK; 1 the
// connection failed, an error status, or decide panicked; 2 the launch environment is missing.
func RunBot(decide Decide, name, version string) (code int) {
	address := strings.TrimSpace(os.Getenv("GINREF_ADDRESS"))
	token := strings.TrimSpace(os.Getenv("GINREF_TOKEN"))
	if address == "" || token == "" {
		fmt.Fprintf(os.Stderr, "%s: GINREF_ADDRESS and GINREF_TOKEN must be set (the referee "+
			"sets them when it starts the bot)\n", name)
		return 2
	}
	conn, err := grpc.Dial(address, grpc.WithInsecure())
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot connect to %s: %v\n", name, address, err)
		return 1
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// WaitForReady: the referee is listening before it starts the bot.
	stream, err := pb.NewRefereeClient(conn).Play(ctx, grpc.WaitForReady(true))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot open the Play stream: %v\n", name, err)
		return 1
	}
	hello := &pb.Hello{Token: token, BotName: name, BotVersion: version, ProtocolVersion: 1}
	if err := stream.Send(&pb.BotMessage{Kind: &pb.BotMessage_Hello{Hello: hello}}); err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot send the Hello: %v\n", name, err)
		return 1
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "%s: decide panicked (%v); leaving the stream\n", name, r)
			code = 1
		}
	}()
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			stream.CloseSend()
			return 0
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: the referee ended the stream: %v\n", name, err)
			return 1
		}
		switch kind := message.Kind.(type) {
		case *pb.RefereeMessage_DecisionRequest:
			request := kind.DecisionRequest
			reply := &pb.ActionReply{RequestId: request.GetRequestId(), Action: decide(request)}
			// A failed Send shows up as an error of the next Recv.
			_ = stream.Send(&pb.BotMessage{Kind: &pb.BotMessage_ActionReply{ActionReply: reply}})
		case *pb.RefereeMessage_Fault:
			fmt.Fprintf(os.Stderr, "%s: %s\n", name, formatFault(kind.Fault))
		}
	}
}
