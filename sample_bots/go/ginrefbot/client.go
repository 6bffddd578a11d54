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
	"sync"
	"unicode"

	pb "github.com/ginref/ginref/gen/go/ginrummy/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

// Decide is a bot's policy: the action answering a request (normally an entry of LegalActions).
// RunBot calls it one request at a time, even with several streams.
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

// refusals are the statuses that refuse the bot itself: the same connection again would be
// refused again.
var refusals = map[string]bool{"UNAUTHENTICATED": true, "PERMISSION_DENIED": true,
	"ALREADY_EXISTS": true, "FAILED_PRECONDITION": true, "INVALID_ARGUMENT": true}

// ExitRefused is the exit code of a bot that the referee refused (its token unknown or revoked...).
const ExitRefused = 3

// opponents lists the other players' names, by seat (with partnerships, the partner left out).
func opponents(start *pb.MatchStart) string {
	var names []string
	for seat, name := range start.GetPlayerNames() {
		if int32(seat) != start.GetSeat() &&
			!(start.GetPlayers() == 4 && int32(seat) == start.GetPartner()) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return start.GetOpponentName()
	}
	return strings.Join(names, ", ")
}

// resultText says who won, by how much and how, e.g. "seat 0 won by 131 (target_reached)".
func resultText(result *pb.MatchResult) string {
	if result == nil { // a MatchEnd without a result: read as an empty one
		result = &pb.MatchResult{}
	}
	who := "no winner"
	if result.Winner != nil {
		who = fmt.Sprintf("seat %d won by %d", result.GetWinner(), result.GetMargin())
	} else if result.WinningTeam != nil {
		who = fmt.Sprintf("team %d won by %d", result.GetWinningTeam(), result.GetMargin())
	}
	how := strings.ToLower(strings.TrimPrefix(result.GetTermination().String(), "TERMINATION_"))
	if result.GetTermination() == pb.Termination_TERMINATION_FORFEIT {
		how += fmt.Sprintf(", %s: %s", result.GetForfeit().GetRule(), result.GetForfeit().GetReason())
	}
	return fmt.Sprintf("%s (%s)", who, how)
}

// messageLines are the lines a referee message is worth: a Welcome, a MatchStart or a MatchEnd.
func messageLines(message *pb.RefereeMessage) []string {
	switch kind := message.Kind.(type) {
	case *pb.RefereeMessage_Welcome:
		return []string{fmt.Sprintf("connected to %s as %s", kind.Welcome.GetRefereeVersion(),
			kind.Welcome.GetBotName()), "waiting for a match"}
	case *pb.RefereeMessage_MatchStart:
		start := kind.MatchStart
		return []string{fmt.Sprintf("match %s started: seat %d against %s", start.GetMatchId(),
			start.GetSeat(), opponents(start))}
	case *pb.RefereeMessage_MatchEnd:
		end := kind.MatchEnd
		return []string{fmt.Sprintf("match %s ended: %s", end.GetMatchId(),
			resultText(end.GetResult())), "waiting for a match"}
	}
	return nil
}

// ending is the line for the end of the stream with status code (a name) and details, and the
// exit code it calls for.
func ending(code, details string) (string, int) {
	if code == "OK" {
		return "no more matches: the referee ended the stream (OK)", 0
	}
	if refusals[code] {
		return fmt.Sprintf("refused by the referee: %s: %s", code, details), ExitRefused
	}
	return fmt.Sprintf("the referee ended the stream: %s: %s", code, details), 1
}

// statusName spells a gRPC code as the proto and the other languages do: AlreadyExists ->
// ALREADY_EXISTS.
func statusName(err error) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range status.Code(err).String() {
		if unicode.IsUpper(r) && unicode.IsLower(prev) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
		prev = r
	}
	return b.String()
}

// RunBot connects with the launch environment (ConfigFromEnv), plays until the referee ends
// the stream and returns the process exit code: 0 the stream ended with status OK (no more
// matches); 1 the connection failed, an error status, or decide panicked; 2 the launch
// environment is missing or malformed; 3 (ExitRefused) the referee refused the bot. With
// GINREF_MATCHES=n it plays on n streams at once and returns the worst code. On stderr it says
// what happens, one line a step, in the words of every language's client
// (docs/writing-a-bot.md §9).
func RunBot(decide Decide, name, version string) int {
	config, err := ConfigFromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	creds, err := config.Credentials()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 2
	}
	conn, err := grpc.Dial(config.Address, creds)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot connect to %s: %v\n", name, config.Address, err)
		return 1
	}
	defer conn.Close()
	hello := &pb.Hello{Token: config.Token, BotName: name, BotVersion: version, ProtocolVersion: 1}
	if config.Matches > 1 {
		hello.ConcurrentMatches = int32(config.Matches)
	}
	// A referee that starts the bot listens before it does, so a plain-text bot waits for the
	// connection; over TLS (a hosted referee, already up) a failed handshake is reported at once.
	wait := config.CACert == ""
	var mu sync.Mutex // one decision at a time: a bot's state needs no lock of its own
	serial := func(request *pb.DecisionRequest) *pb.Action {
		mu.Lock()
		defer mu.Unlock()
		return decide(request)
	}
	codes := make([]int, config.Matches)
	var streams sync.WaitGroup
	for i := range codes {
		streams.Add(1)
		go func(i int) {
			defer streams.Done()
			codes[i] = play(conn, serial, hello, name, wait)
		}(i)
	}
	streams.Wait()
	worst := 0
	for _, code := range codes {
		if code > worst {
			worst = code
		}
	}
	return worst
}

// play runs one Play stream to its end and returns its exit code.
func play(conn *grpc.ClientConn, decide Decide, hello *pb.Hello, name string, wait bool) (code int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := pb.NewRefereeClient(conn).Play(ctx, grpc.WaitForReady(wait))
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot open the Play stream: %s: %s\n", name, statusName(err),
			status.Convert(err).Message())
		return 1
	}
	if err := stream.Send(&pb.BotMessage{Kind: &pb.BotMessage_Hello{Hello: hello}}); err != nil && err != io.EOF {
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
		if err != nil {
			ended, details := "OK", "" // io.EOF: the referee ended the stream with OK
			if err == io.EOF {
				stream.CloseSend()
			} else {
				ended, details = statusName(err), status.Convert(err).Message()
			}
			line, exit := ending(ended, details)
			fmt.Fprintf(os.Stderr, "%s: %s\n", name, line)
			return exit
		}
		for _, line := range messageLines(message) {
			fmt.Fprintf(os.Stderr, "%s: %s\n", name, line)
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
