// The replay page of three players (R10.1) or partnerships (R10.2): put into replay-page.html's
// script by replays/html.py for those matches only. It draws a frame of replays/group_html.py:
// a score board (each player's points, or each team's), then a felt per table in play, each
// with its two players (hand seat 1 above, hand seat 0 below), the stock and the discard pile;
// with three players the seat that dealt and sits out is on the board, marked so.
GROUP = (() => {
  document.body.classList.add("group");
  for (const id of ["scoreboard", "tables"]) document.getElementById(id).hidden = false;
  for (const seat of SEATS) document.getElementById("show" + seat).parentElement.hidden = false;

  function seatName(seat) { return "Seat " + seat + ": " + DATA.seats[seat].label; }
  function teamName(team) {
    return "Team " + team + ": " + DATA.seats[team].label + " & " + DATA.seats[team + 2].label;
  }

  function board(f) {
    const box = document.getElementById("scoreboard");
    box.replaceChildren();
    f.scores.forEach((points, side) => {
      const item = el("div", "side");
      item.id = "side" + side;
      item.append(el("span", "name", DATA.teams ? teamName(side) : seatName(side)));
      if (!DATA.teams && f.sittingOut === side) {
        item.append(el("span", "badge", "dealer, sits out"));
        item.classList.add("bench");
      }
      const score = el("span", "score", String(points));
      score.append(el("small", "", f.over ? "final" : "points"));
      item.append(score);
      box.append(item);
    });
  }

  function seatBox(f, table, handSeat) {
    const seat = table.seats[handSeat];
    const box = el("div", "seat");
    box.id = "gseat" + seat;
    const who = el("div", "who");
    who.append(el("span", "name", seatName(seat)));
    if (DATA.seats[seat].bot) who.append(el("span", "badge", DATA.seats[seat].bot));
    if (DATA.teams) who.append(el("span", "badge", "team " + (seat % 2)));
    if (DATA.teams && table.dealer === handSeat) who.append(el("span", "badge", "dealer"));
    if (!DATA.teams && handSeat === 1) who.append(el("span", "badge", "dealer's part"));
    const acting = f.toAct === seat && !f.over;
    if (acting) who.append(el("span", "badge turn", "to act"));
    box.classList.toggle("to-act", acting);
    box.append(who);
    const hand = el("div", "cards");
    hand.id = "ghand" + seat;
    const cards = table.hands[handSeat];
    hand.dataset.count = String(cards.length);
    for (const code of cards) {
      const moved = f.moved === code && f.actor === seat ? "moved" : "";
      hand.append(shown(seat) ? cardEl(code, moved) : backEl());
    }
    box.append(hand);
    return box;
  }

  function middle(f, table) {
    const box = el("div", "middle");
    const stock = el("div");
    stock.append(el("div", "pile-label", "Stock"), backEl(),
                 el("div", "pile-label", table.stock + " cards"));
    const pileBox = el("div");
    const pile = el("div", "pile");
    pile.id = "gpile" + table.table;
    const top = table.pile.slice(-8);
    const ours = table.seats.includes(f.actor);
    for (const code of top) pile.append(cardEl(code, ours && code === f.moved ? "moved" : ""));
    if (!table.pile.length) pile.append(el("div", "pile-label", "empty"));
    pileBox.append(el("div", "pile-label", "Discard pile"), pile);
    const info = el("div", "info");
    if (table.upcard) {
      info.append(el("div", "", "Upcard " + rankText(table.upcard) + SUITS[table.upcard[1]]));
    }
    info.append(el("div", "", "Knock limit " + table.knockLimit));
    if (table.pile.length > top.length) info.append(el("div", "", table.pile.length + " in the pile"));
    if (table.over) info.append(el("div", "", "hand over"));
    box.append(stock, pileBox, info);
    return box;
  }

  function draw(f) {
    board(f);
    const tables = document.getElementById("tables");
    tables.replaceChildren();
    for (const table of f.tables) {
      const felt = el("div", "felt");
      felt.id = "table" + table.table;
      const where = DATA.teams ? "Table " + table.table + " \u00b7 " : "";
      const round = DATA.teams ? " (round " + Math.ceil(table.hand / 2) + ")" : "";
      felt.append(el("h3", "", where + "Hand " + table.hand + round));
      felt.append(seatBox(f, table, 1), middle(f, table), seatBox(f, table, 0));
      tables.append(felt);
    }
  }
  return {draw};
})();
