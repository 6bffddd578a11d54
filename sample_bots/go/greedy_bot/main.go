// Command greedy_bot is the greedy bot in Go: the greedy v1 specification of
// sample_bots/greedy_bot.py (its docstring), rule for rule and tie-break for tie-break.
// Run: sample_bots/go/out/greedy_bot
package main

import (
	"os"

	pb "github.com/ginref/ginref/gen/go/ginrummy/v1"
	bot "github.com/ginref/ginref/sample_bots/go/ginrefbot"
)

type kind int

const (
	chooseDeal kind = iota
	defenderPlay
	bigGin
	knock
	discard
	drawDiscard
	drawStock
	passOffer
	declareDead
	other
)

func kindOf(a *pb.Action) kind {
	switch a.Kind.(type) {
	case *pb.Action_ChooseDeal:
		return chooseDeal
	case *pb.Action_DefenderPlay:
		return defenderPlay
	case *pb.Action_BigGin:
		return bigGin
	case *pb.Action_Knock:
		return knock
	case *pb.Action_Discard:
		return discard
	case *pb.Action_DrawDiscard:
		return drawDiscard
	case *pb.Action_DrawStock:
		return drawStock
	case *pb.Action_PassOffer:
		return passOffer
	case *pb.Action_DeclareDead:
		return declareDead
	}
	return other
}

func card(text string) int {
	c, err := bot.CardIndex(text)
	if err != nil {
		panic(err)
	}
	return c
}

func without(cards []int, x int) []int {
	out := make([]int, 0, len(cards))
	for _, c := range cards {
		if c != x {
			out = append(out, c)
		}
	}
	return out
}

// bestCard: least dw(hand - c), then the larger value, then the larger index.
func bestCard(hand, candidates []int) int {
	best, bestDw := -1, 0
	for _, c := range candidates {
		dw := bot.MinDeadwood(without(hand, c))
		if best < 0 || dw < bestDw || (dw == bestDw && (bot.CardValue(c) > bot.CardValue(best) ||
			(bot.CardValue(c) == bot.CardValue(best) && c > best))) {
			best, bestDw = c, dw
		}
	}
	return best
}

// takesDiscard (rule 7): whether taking the top discard t strictly lowers the best reachable
// deadwood.
func takesDiscard(hand []int, t int) bool {
	withT := append(append([]int{}, hand...), t)
	best := 1 << 30
	for _, d := range hand {
		if v := bot.MinDeadwood(without(withT, d)); v < best {
			best = v
		}
	}
	return best < bot.MinDeadwood(hand)
}

func decide(request *pb.DecisionRequest) *pb.Action {
	legal := request.GetLegalActions()
	obs := request.GetObservation()
	byKind := map[kind][]*pb.Action{}
	for _, a := range legal {
		byKind[kindOf(a)] = append(byKind[kindOf(a)], a)
	}
	has := func(k kind) bool { return len(byKind[k]) > 0 }
	hand := make([]int, 0, len(obs.GetHand()))
	for _, c := range obs.GetHand() {
		hand = append(hand, card(c))
	}

	if has(chooseDeal) { // rule 1
		for _, a := range byKind[chooseDeal] {
			if !a.GetChooseDeal().GetDeal() {
				return a
			}
		}
		return byKind[chooseDeal][0]
	}
	if has(defenderPlay) { // rule 2
		return byKind[defenderPlay][0]
	}
	if has(bigGin) { // rule 3
		return byKind[bigGin][0]
	}
	if has(knock) { // rule 4
		entries := map[int]*pb.Action{}
		var cards []int
		for _, a := range byKind[knock] {
			c := card(a.GetKnock().GetDiscard())
			if _, seen := entries[c]; !seen {
				entries[c] = a
				cards = append(cards, c)
			}
		}
		return entries[bestCard(hand, cards)]
	}
	if has(discard) { // rule 5
		entries := map[int]*pb.Action{}
		var cards []int
		for _, a := range byKind[discard] {
			c := card(a.GetDiscard().GetCard())
			if _, seen := entries[c]; !seen {
				entries[c] = a
				cards = append(cards, c)
			}
		}
		return entries[bestCard(hand, cards)]
	}
	if obs.GetPhase() == pb.Phase_PHASE_WALL && !has(declareDead) { // rule 6
		if has(drawDiscard) {
			return byKind[drawDiscard][0]
		}
		if has(passOffer) {
			return byKind[passOffer][0]
		}
	}
	pile := obs.GetDiscardPile()
	if has(drawDiscard) && len(pile) > 0 && takesDiscard(hand, card(pile[len(pile)-1])) { // rule 7
		return byKind[drawDiscard][0]
	}
	for _, k := range []kind{drawStock, passOffer, declareDead} {
		if has(k) {
			return byKind[k][0]
		}
	}
	return legal[0] // rule 8
}

func main() {
	os.Exit(bot.RunBot(decide, "greedy-bot-go", "1.0.0"))
}
