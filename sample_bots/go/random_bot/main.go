// Command random_bot is the random bot in Go: it answers every request with a uniformly random
// entry of legal_actions, sent back unchanged. GINREF_BOT_SEED=<integer> makes its choices
// reproducible (SplitMix64, the same generator as the JavaScript, C++ and Java random bots);
// otherwise it seeds itself from the operating system. Run: sample_bots/go/out/random_bot
package main

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	pb "github.com/ginref/ginref/gen/go/ginrummy/v1"
	bot "github.com/ginref/ginref/sample_bots/go/ginrefbot"
)

func main() {
	var state uint64
	if text := strings.TrimSpace(os.Getenv("GINREF_BOT_SEED")); text != "" {
		seed, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "random-bot-go: GINREF_BOT_SEED=%q: expected an integer\n", text)
			os.Exit(2)
		}
		state = uint64(seed)
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		state = binary.LittleEndian.Uint64(b[:])
	}
	decide := func(request *pb.DecisionRequest) *pb.Action {
		legal := request.GetLegalActions()
		return legal[bot.SplitMix64(&state)%uint64(len(legal))]
	}
	os.Exit(bot.RunBot(decide, "random-bot-go", "1.0.0"))
}
