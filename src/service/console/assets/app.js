// The arbiter console: a hall of live boards on one connection, a board view with its move
// list, rulings and a replay slider, and the arbiter's word written as `arbiter` events.
// Served by `referee serve --console ADDR`; talks only to the JSON API under /api/.
"use strict";

const state = {
  token: sessionStorage.getItem("referee-token") || "",
  public: false, // set from the page once it is loaded
  boards: new Map(), // game id -> latest frame of the hall
  silentMs: 60000, // from the server's --silent-s, or ?silent_s= on the page's address
  game: null, // the board view's game
  seq: 0, // the board view's slider position
  stream: null,
  games: new Map(), // log name -> the game's spec, from /api/variants
  conn: "", // the live stream's state, for the status line
  lastEventAt: null, // when the server received the latest event shown (ms)
  flipped: false, // the board view turned round
  millis: false, // clocks to the millisecond
  pinned: null, // the ruling whose evidence is being looked at (its `at`)
  pending: null, // the arbiter's word awaiting confirmation
  sound: localStorage.getItem("referee-sound") === "on",
  beeps: 0, // alert sounds played (read by the tests)
  filter: { text: "", alert: "" },
};

const $ = (sel) => document.querySelector(sel);

// ---- talking to the server ----

function headers() {
  const h = { "Content-Type": "application/json" };
  if (state.token && !state.public) h.Authorization = `Bearer ${state.token}`;
  return h;
}

// The spectators' view reads the delayed copy of the same API, with no token.
function apiPath(path) {
  return state.public ? `/public${path}` : path;
}

async function api(path, options = {}) {
  const response = await fetch(apiPath(path), { ...options, headers: headers() });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(body.error || `${response.status}`);
  return body;
}

// Server-Sent Events read through fetch, so the token rides in a header and never in a URL.
// Only the current stream reports its state: one that was stopped says nothing more.
async function listen(path, onMessage) {
  const controller = new AbortController();
  state.stream = controller;
  const say = (s) => { if (state.stream === controller) setConn(s); };
  for (;;) {
    if (controller.signal.aborted) return;
    try {
      say("connecting");
      const response = await fetch(apiPath(path), { headers: headers(), signal: controller.signal });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        throw new Error(body.error || `${response.status}`);
      }
      say("connected");
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const chunk = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(chunk);
          const data = chunk.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (data && state.stream === controller) onMessage(event ? event[1] : "message", JSON.parse(data));
        }
      }
      say("reconnecting: the server closed the stream");
    } catch (error) {
      if (controller.signal.aborted) return;
      say(`reconnecting: ${error.message}`);
    }
    if (controller.signal.aborted) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function stopListening() {
  if (state.stream) state.stream.abort();
  state.stream = null;
}

// ---- the status line: connection, boards, age of the last event ----

function setConn(s) {
  state.conn = s;
  renderStatus();
}

function heard(receivedMs) {
  if (!receivedMs) return;
  state.lastEventAt = Math.max(state.lastEventAt || 0, Math.min(Date.now(), receivedMs));
}

function renderStatus() {
  const parts = [state.conn || "not connected"];
  if (!$("#hall").hidden) parts.push(`${state.boards.size} board${state.boards.size === 1 ? "" : "s"}`);
  else if (state.game) parts.push(`game ${state.game.id}`);
  parts.push(state.lastEventAt ? `last event ${ageText(Date.now() - state.lastEventAt)} ago` : "no event yet");
  const status = $("#status");
  status.textContent = parts.join(" · ");
  status.className = state.conn === "connected" ? "ok" : state.conn.startsWith("reconnecting") ? "error" : "";
}

// ---- clocks ----

function two(n) {
  return String(n).padStart(2, "0");
}

function clockText(ms, millis) {
  if (ms === null || ms === undefined) return "–";
  const negative = ms < 0;
  const whole = Math.max(0, Math.floor(ms));
  const total = Math.floor(whole / 1000);
  const h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
  let text = h > 0 ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`;
  if (millis) text += `.${String(whole % 1000).padStart(3, "0")}`;
  return negative ? `${text} (flag)` : text;
}

// The time a side has at `now` (server ms): the running side's clock goes down from the
// press that started it (the clock's `pressed_ms`), the other's stands. The same figures in
// the hall and the board view.
function clockAt(clock, side, now) {
  if (!clock) return null;
  const ms = clock[`${side}_ms`];
  if (ms === null || ms === undefined) return null;
  if (clock.running !== side || !clock.pressed_ms) return ms;
  return ms - Math.max(0, now - clock.pressed_ms);
}

// ---- alerts: a board turns a colour by the effect of its latest ruling ----

function alertOf(ruling, variant) {
  if (!ruling) return null;
  // Electronic boards, common to every game: a derived move is no alert; a mismatch is the
  // card's alert while it stands (the frame's board.mismatch), whatever ruling came since;
  // a lifted piece and the result signal are notices for the arbiter, in their own colours.
  if (ruling.kind === "board_move") return null;
  if (ruling.kind === "board_mismatch") return "board-mismatch";
  if (ruling.kind === "board_touch") return "board-touch";
  if (ruling.kind === "board_result_signal") return "board-signal";
  // By effect first: a draughts irregular move is an `illegal_move` whose effect is a
  // correction the opponent may demand, not a loss.
  switch (ruling.effect) {
    case "correction_required": return "correction";
    case "must_vary": return "vary";
    case "draw_claimable": return "claimable";
    default: break;
  }
  // An illegal move keeps its colour even when it ends the game (the result is shown too).
  if (ruling.kind === "illegal_move") return "illegal";
  if (ruling.result) return "ended";
  if (ruling.effect === "foul" || ruling.kind === "foul" || ruling.kind === "foul_limit") return "foul";
  // A game's own alerts (renju: black's stone on a forbidden point that white may claim).
  const own = (spec(variant)?.alerts || []).find((a) => a.kind === ruling.kind);
  if (own && ruling.effect === "none") return own.alert;
  return "notice";
}

// Who must act on a board now, and what about, in words: the arbiter for a board mismatch,
// the opponent for a correction, the side ordered to vary, the side that may claim; else
// whose move it is.
function actionOf(board) {
  const [first, second] = sideNames(board.variant);
  const other = (side) => (side === first ? second : side === second ? first : "the opponent");
  if (board.result) return `game over: ${board.result}`;
  if (board.board && board.board.mismatch) return "arbiter: the board shows no legal move — put it right or set the moves";
  const r = board.ruling;
  if (r && r.effect === "correction_required") return `${other(r.side)}: demand correction or play on`;
  if (r && r.effect === "must_vary") return `${r.side || board.to_move}: must vary the move`;
  if (r && r.effect === "draw_claimable") return `${board.to_move}: may claim a draw`;
  if (r && r.kind === "board_result_signal") return "arbiter: the players signal a result";
  // A game's own alert says who may act (renju: white may claim black's forbidden stone).
  const own = r && (spec(board.variant)?.alerts || []).find((a) => a.kind === r.kind);
  if (own && r.effect === "none") return own.meaning;
  return board.to_move ? `${board.to_move} to move` : "";
}

// ---- hall ----

// A game's spec as the server describes it; a game the server did not describe has none.
function spec(variant) {
  return state.games.get(variant) || null;
}

// The first and second player as the game's log names them (renju: black moves first).
function sideNames(variant) {
  const known = spec(variant);
  return known ? known.sides : ["first player", "second player"];
}

// The games' specs, once per page; the legend gains each game's own alerts.
async function loadGames() {
  if (state.games.size) return;
  const games = await api("/api/variants");
  for (const game of games) state.games.set(game.name, game);
  const legend = $("#hall .legend");
  const filter = $("#filter-alert");
  for (const game of games) {
    for (const a of game.alerts) {
      legend.insertAdjacentHTML("beforeend", ` <span class="alert-${esc(a.alert)}" title="${esc(a.meaning)}">${esc(a.alert.replace(/_/g, " "))} (${esc(game.name)})</span>`);
      if (!filter.querySelector(`option[value="${a.alert}"]`)) filter.insertAdjacentHTML("beforeend", `<option value="${esc(a.alert)}">${esc(a.alert.replace(/_/g, " "))}</option>`);
    }
  }
}

// The card's colour: a standing board mismatch (until the board comes back or the arbiter
// sets the moves), else its latest ruling's alert; a board notice colours only its line.
function cardAlert(board) {
  if (board.board && board.board.mismatch && !board.result) return "board-mismatch";
  if (!board.alert || board.alert.startsWith("board-")) return null;
  return board.alert;
}

// The age of a board's last report, in words.
function ageText(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  return `${Math.floor(s / 3600)} h`;
}

// A device silent for the silent time while its game goes on is a warning.
function deviceSilent(board, now) {
  return Boolean(board.board && board.board.received_ms && !board.result && now - board.board.received_ms > state.silentMs);
}

// The device badge: which board reports to the game and how long ago it last did.
function deviceBadge(board) {
  const b = board.board;
  if (!b || !b.received_ms) return "";
  const now = Date.now();
  return `<div class="device${deviceSilent(board, now) ? " device-silent" : ""}" data-heard="${b.received_ms}">` +
    `<span class="name">${esc(b.device || "board")}</span> <span class="age">${ageText(now - b.received_ms)}</span></div>`;
}

function clockSpan(board, side, now) {
  const running = board.clock && board.clock.running === side ? " running" : "";
  return `<span class="clock${running}" data-side="${esc(side)}">${esc(side)} ${clockText(clockAt(board.clock, side, now))}</span>`;
}

// Renju under a RIF opening rule: who holds which colour is tentative until the opening is
// over, and the players named are those holding the colours now (after any swap).
function colourNote(board) {
  if (board.tentative) return ` <span class="tentative" title="the opening is under way: a swap may still change who plays which colour">(colours tentative${board.swapped ? ", swapped" : ""})</span>`;
  if (board.swapped) return ` <span class="swapped" title="the players swapped colours in the opening">(swapped)</span>`;
  return "";
}

function hallCard(board) {
  const [first, second] = sideNames(board.variant);
  const shown = cardAlert(board);
  const alert = shown ? ` alert-${shown}` : "";
  const silent = board.silent ? " silent" : "";
  const kind = board.ruling ? ` · <span class="kind alert-${board.alert || "notice"}">${esc(board.ruling.kind)}</span>` : "";
  const now = Date.now();
  return `<a class="card${alert}${silent}" href="#/game/${encodeURIComponent(board.id)}" data-game="${esc(board.id)}" data-alert="${esc(shown || "")}">` +
    `<div class="title">${esc(board.id)}</div>` +
    (board.players ? `<div class="players">${esc(board.players[0] || "?")} – ${esc(board.players[1] || "?")}${colourNote(board)}</div>` : "") +
    drawBoard(board.variant, board.fen, { small: true, marks: board.last || [], offers: board.offers || [] }) +
    `<div class="clocks">${clockSpan(board, first, now)}${clockSpan(board, second, now)}</div>` +
    `<div class="last">${esc(board.move || "")}</div>` +
    deviceBadge(board) +
    `<div class="act">${esc(actionOf(board))}</div>` +
    `<div class="result">${esc(board.result || "")}${kind}</div></a>`;
}

// Whether a card passes the hall's filter: its text (board id, players, move, who acts) and
// its alert.
function passes(board) {
  const f = state.filter;
  if (f.alert === "alerts" && !cardAlert(board) && !board.silent) return false;
  if (f.alert === "silent" && !board.silent && !deviceSilent(board, Date.now())) return false;
  if (f.alert && f.alert !== "alerts" && f.alert !== "silent" && cardAlert(board) !== f.alert) return false;
  if (!f.text) return true;
  const hay = [board.id, ...(board.players || []), board.move || "", actionOf(board), board.ruling ? board.ruling.kind : ""].join(" ").toLowerCase();
  return f.text.toLowerCase().split(/\s+/).every((w) => hay.includes(w));
}

function applyFilter() {
  let shown = 0;
  for (const card of document.querySelectorAll("#hall-grid .card")) {
    const board = state.boards.get(card.dataset.game);
    const pass = !board || passes(board);
    card.hidden = !pass;
    if (pass) shown += 1;
  }
  const total = state.boards.size;
  $("#hall-count").textContent = shown === total ? `${total} boards` : `${shown} of ${total} boards shown`;
}

// The whole hall, drawn once per snapshot; after that only the board that changed is redrawn
// (a hall of 150 boards would otherwise redraw 150 SVGs per event).
function renderHall() {
  const grid = $("#hall-grid");
  const boards = [...state.boards.values()].sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }));
  grid.innerHTML = boards.map(hallCard).join("");
  applyFilter();
  renderStatus();
}

function cardOf(id) {
  return [...document.querySelectorAll("#hall-grid .card")].find((c) => c.dataset.game === id);
}

function renderCard(id) {
  const board = state.boards.get(id);
  const card = board && cardOf(id);
  if (!card) return renderHall(); // a game new to the hall
  card.outerHTML = hallCard(board);
  applyFilter();
}

// Each second: the running clocks count down and silent boards blink, text and class only.
function tickHall() {
  const now = Date.now();
  for (const board of state.boards.values()) {
    board.silent = Boolean(board.clock && board.clock.running && !board.result && now - board.heardAt > state.silentMs);
    const card = (board.clock || board.board) && cardOf(board.id);
    if (!card) continue;
    const badge = card.querySelector(".device");
    if (badge) {
      badge.querySelector(".age").textContent = ageText(now - Number(badge.dataset.heard));
      badge.classList.toggle("device-silent", deviceSilent(board, now));
    }
    card.classList.toggle("silent", board.silent);
    for (const span of card.querySelectorAll(".clock")) {
      const side = span.dataset.side;
      span.textContent = `${side} ${clockText(clockAt(board.clock, side, now))}`;
    }
  }
  if (state.filter.alert === "silent") applyFilter();
}

// A short tone when a board turns to an alert it did not show before (off unless the arbiter
// turns it on: a hall is no place for unasked noise).
function beep() {
  state.beeps += 1;
  try {
    const audio = new (window.AudioContext || window.webkitAudioContext)();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.value = 0.15;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.18);
    tone.onended = () => audio.close();
  } catch (_) {
    // No audio device: the count above still says an alert came.
  }
}

// A frame replaces the board it is newer than; the server's receive time of its event is
// when the board was last heard from.
function takeFrame(frame, isUpdate) {
  const old = state.boards.get(frame.id);
  if (isUpdate && old && frame.seq <= old.seq) return;
  const heardAt = frame.received_ms ? Math.min(Date.now(), frame.received_ms) : Date.now();
  heard(frame.received_ms);
  // The frame's `move` is the board's last move (a Gjq reveal added to it, chess_gjq 9.3
  // "e2-e4车"), whatever events came after it: the same after a reload as live.
  const board = { ...(old || {}), ...frame, heardAt, silent: false };
  const latest = (frame.rulings || []).filter((r) => r.kind !== "board_move").slice(-1)[0] || frame.latest;
  if (latest) { board.ruling = latest; board.alert = alertOf(latest, board.variant); }
  state.boards.set(frame.id, board);
  if (isUpdate && state.sound) {
    const before = old ? cardAlert(old) : null;
    const now = cardAlert(board);
    if (now && now !== before) beep();
  }
}

function openHall(prefix) {
  stopListening();
  state.game = null;
  state.boards.clear();
  state.lastEventAt = null;
  show("hall");
  $("#prefix").value = prefix;
  const path = `/api/live?prefix=${encodeURIComponent(prefix)}`;
  listen(path, (kind, data) => {
    if (kind === "snapshot") {
      state.boards.clear();
      data.boards.forEach((b) => takeFrame(b, false));
      renderHall();
    } else if (kind === "update") {
      takeFrame(data, true);
      renderCard(data.id);
      renderStatus();
    } else if (kind === "failed") {
      setConn(`failed: ${data.error}`);
    }
  });
}

// Clocks tick, silent boards show and the status line ages without waiting for the server.
setInterval(() => {
  if (!$("#hall").hidden) tickHall();
  else if (state.game) tickGame();
  renderStatus();
}, 1000);

// ---- board view ----

async function openGame(id, seq) {
  stopListening();
  show("game");
  state.lastEventAt = null;
  state.pinned = null;
  $("#game-title").textContent = id;
  try {
    state.game = await api(`/api/games/${encodeURIComponent(id)}`);
  } catch (error) {
    $("#game-error").textContent = error.message;
    return;
  }
  $("#game-error").textContent = "";
  const last = state.game.frames.length - 1;
  state.seq = seq === null || seq === undefined ? last : Math.min(Math.max(0, seq), last);
  renderGame();
  listen(`/api/live?game=${encodeURIComponent(id)}`, async (kind) => {
    if (kind !== "update") return;
    const atEnd = state.seq === state.game.frames.length - 1;
    state.game = await api(`/api/games/${encodeURIComponent(id)}`);
    if (atEnd) state.seq = state.game.frames.length - 1;
    renderGame();
  });
}

function rulingsInForce(game, seq) {
  const overturned = new Set(game.rulings.filter((r) => r.overturned_at && r.overturned_at <= seq).map((r) => r.at));
  return game.rulings.filter((r) => r.at <= seq && !overturned.has(r.at));
}

function atEnd() {
  return state.game && state.seq === state.game.frames.length - 1;
}

// The clocks of the frame at the slider: live at the end of a game in play (the running
// side's clock goes down from its press), else as they stood when that event came.
function renderClocks() {
  const game = state.game;
  const frame = game.frames[state.seq];
  const now = atEnd() && !game.result ? Date.now() : frame.received_ms || Date.now();
  const [first, second] = sideNames(game.variant);
  // The clock of the side at the bottom of the board under it (flipped: the second's).
  const bottom = state.flipped ? second : first, top = state.flipped ? first : second;
  for (const [el, side] of [["#clock-first", bottom], ["#clock-second", top]]) {
    const span = $(el);
    const running = Boolean(frame.clock && frame.clock.running === side);
    span.textContent = `${running ? "▶ " : ""}${side} ${clockText(clockAt(frame.clock, side, now), state.millis)}`;
    span.classList.toggle("running", running);
    span.dataset.side = side;
    span.title = frame.clock && frame.clock.shown ? "as the board's clock showed at the last press (the header sets no time control)" : "";
  }
}

function tickGame() {
  if (!state.game || $("#game").hidden) return;
  renderClocks();
}

// The moves that stand, numbered, one row per move pair: moves and stones played, moves the
// referee derived from a board's reports or the arbiter set (each in the game's notation, as
// `referee replay` writes it), a Gjq reveal added to its move.
function moveRows(game) {
  const [first] = sideNames(game.variant);
  const plies = [];
  for (const e of game.events) {
    if (e.type === "move" || e.type === "place") plies.push({ seq: e.seq, side: e.side, text: e.text });
    else if (e.type === "reveal" && plies.length) plies[plies.length - 1].text += e.text; // chess_gjq 9.3 "e2-e4车"
    // Renju under a RIF opening rule: white's choice that stands puts black's fifth stone on the
    // board ("white chooses j11"); a void choice (a ruling at it) puts nothing.
    else if (e.type === "choose" && !game.rulings.some((r) => r.at === e.seq && r.effect === "correction_required")) {
      plies.push({ seq: e.seq, side: first, text: `${e.text.split(" ").pop()} (chosen)` });
    }
    if ((e.made || []).length) {
      let side = game.frames[e.seq - 1] ? game.frames[e.seq - 1].to_move : null;
      for (const text of e.made) {
        plies.push({ seq: e.seq, side, text, made: true });
        side = side === first ? sideNames(game.variant)[1] : first;
      }
    }
  }
  const rows = [];
  for (const ply of plies) {
    const row = rows[rows.length - 1];
    if (ply.side === first || !row || row[1]) rows.push(ply.side === first ? [ply, null] : [null, ply]);
    else row[1] = ply;
  }
  return rows;
}

function renderMoves(game) {
  const cell = (ply) => {
    if (!ply) return `<td class="none">…</td>`;
    const cls = `${ply.seq === state.seq ? "current" : ""}${ply.seq > state.seq ? " future" : ""}${ply.made ? " made" : ""}`;
    return `<td data-seq="${ply.seq}" class="${cls}">${esc(ply.text)}</td>`;
  };
  const [first, second] = sideNames(game.variant);
  $("#moves").innerHTML = `<thead><tr><th></th><th>${esc(first)}</th><th>${esc(second)}</th></tr></thead><tbody>` +
    moveRows(game).map((row, i) => `<tr><td class="n">${i + 1}.</td>${cell(row[0])}${cell(row[1])}</tr>`).join("") + "</tbody>";
}

function renderGame() {
  const game = state.game;
  const frame = game.frames[state.seq];
  heard(game.events.length ? game.events[game.events.length - 1].received_ms : null);
  $("#slider").max = String(game.frames.length - 1);
  $("#slider").value = String(state.seq);
  $("#seq").textContent = `seq ${state.seq} of ${game.frames.length - 1}`;
  $("#board").innerHTML = drawBoard(game.variant, frame.fen, { marks: frame.last || [], offers: frame.offers || [], flipped: state.flipped });
  $("#game").classList.toggle("flipped", state.flipped);
  renderSensor(game, frame);
  renderClocks();
  $("#to-move").textContent = frame.result ? `result ${frame.result}` : frame.to_move ? `${frame.to_move} to move` : "";
  $("#game-result").textContent = game.result ? `result ${game.result}` : "in play";
  // The players holding each colour at this frame (renju: after any swap, tentative while
  // the opening is under way), then the header's tags.
  const [firstName, secondName] = sideNames(game.variant);
  const holding = frame.players ? [`${firstName}: ${frame.players[0] || "?"}`, `${secondName}: ${frame.players[1] || "?"}${frame.tentative ? " (colours tentative)" : frame.swapped ? " (after a swap)" : ""}`] : [];
  // After a swap the header's player tags name the colours at the start: said so.
  const playerTags = new Set([firstName, secondName].map((n) => n.charAt(0).toUpperCase() + n.slice(1)));
  const tagText = ([name, value]) => frame.swapped && playerTags.has(name) ? `${name} at the start: ${value}` : `${name}: ${value}`;
  $("#game-tags").textContent = [...holding, ...Object.entries(game.tags || {}).map(tagText)].join(" · ");
  const lit = new Set(state.lit || []);
  $("#events").innerHTML = game.events.map((e) =>
    `<li data-seq="${e.seq}" class="ev-${esc(e.type)}${e.seq === state.seq ? " current" : ""}${lit.has(e.seq) ? " lit" : ""}${e.seq > state.seq ? " future" : ""}">` +
    `<span class="n">${e.seq}</span> ${e.type === "board" || String(e.text).startsWith(`${e.side} `) ? "" : `<span class="side">${esc(e.side)}</span> `}<span class="what">${esc(e.text)}</span>` +
    ((e.made || []).length ? ` <span class="made">⇒ ${esc(e.made.join(" "))}</span>` : "") + `</li>`).join("");
  renderMoves(game);
  // The rulings in force at the slider; a ruling whose evidence is being looked at stays,
  // pinned at the top, even where the slider is before it.
  const shown = rulingsInForce(game, state.seq);
  const pinned = state.pinned !== null && !shown.some((r) => r.at === state.pinned) ? game.rulings.filter((r) => r.at === state.pinned) : [];
  $("#rulings").innerHTML = [...pinned.map((r) => rulingItem(r, game, true)), ...shown.map((r) => rulingItem(r, game, false))].join("") || "<li>no ruling in force</li>";
  const open = frame.open || [];
  $("#open").innerHTML = open.map((o) => `<div class="open-item">${esc(o)}</div>`).join("");
  $("#open").hidden = open.length === 0;
  $("#downloads").innerHTML = downloads(game);
  const current = $("#events li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
  renderStatus();
}

// Whether a ruling is in force now (at the log's end): only those the arbiter may uphold or
// overturn (the service refuses the others).
function inForceNow(game, at) {
  return rulingsInForce(game, game.frames.length - 1).some((r) => r.at === at);
}

function rulingItem(r, game, pinned) {
  const by = r.overturned_at ? ` · overturned at event ${r.overturned_at}` : "";
  return `<li class="ruling alert-${alertOf(r, game.variant) || "notice"}${pinned ? " pinned" : ""}" data-at="${r.at}">` +
    (pinned ? `<div class="pin">looking at its evidence (the ruling comes at event ${r.at})</div>` : "") +
    `<div><b>${esc(r.kind)}</b> at event ${r.at}${r.side ? ` · ${esc(r.side)}` : ""} · ${esc(r.effect)}${r.result ? ` · ${esc(r.result)}` : ""} · <i>${esc(r.rule)}</i>${by}</div>` +
    `<div class="why">${esc(r.text)}</div>` +
    `<div class="evidence">evidence: ${(r.evidence || []).map((s) => `<a href="#" data-jump="${s}">${s}</a>`).join(" ")}</div>` +
    (state.public || pinned || !inForceNow(game, r.at) ? "" : `<div class="actions"><button data-act="uphold" data-ruling="${r.at}">uphold…</button> <button data-act="overturn" data-ruling="${r.at}">overturn…</button></div>`) +
    `</li>`;
}

// The game's files: its log (JSONL), PGN for xiangqi, PDN for draughts, the renju record, the
// audit bundle.
function downloads(game) {
  if (state.public) return "";
  const kinds = [["log", "log (JSONL)"]];
  if (game.variant === "xiangqi") kinds.push(["pgn", "PGN"]);
  if (game.variant === "draughts") kinds.push(["pdn", "PDN"]);
  if (game.variant === "renju") kinds.push(["renju", "record"]);
  kinds.push(["audit", "audit bundle"]);
  return "download: " + kinds.map(([k, label]) => `<a href="#" data-download="${k}">${label}</a>`).join(" · ");
}

// A download through fetch, so that the token rides in a header; saved under the name the
// server gives.
async function download(kind) {
  const id = state.game.id;
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(id)}/download/${kind}`, { headers: headers() });
    if (!response.ok) {
      const body = await response.json().catch(() => ({ error: response.statusText }));
      throw new Error(body.error || `${response.status}`);
    }
    const blob = await response.blob();
    const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = named ? named[1] : `${id}.${kind}`;
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    $("#game-error").textContent = "";
  } catch (error) {
    $("#game-error").textContent = `download ${kind}: ${error.message}`;
  }
}

// The game's electronic board beside its position: the board's report standing at the
// slider's seq (its last report up to there), the squares where it differs from the game's
// position outlined, a line saying whether it matches, and the raw reports (a click on one
// scrubs to it).
function renderSensor(game, frame) {
  const reports = game.reports || [];
  $("#game").classList.toggle("has-sensor", reports.length > 0);
  $("#sensor-panel").hidden = reports.length === 0;
  $("#reports-panel").hidden = reports.length === 0;
  if (!reports.length) return;
  const b = frame.board;
  if (b && b.shown) {
    const fen = game.variant === "draughts" ? `W:${b.shown}` : b.shown;
    $("#sensor").innerHTML = drawBoard(game.variant, fen, { marks: b.differs || [], markColour: "#d62728", markClass: "differs", flipped: state.flipped });
    const device = `${b.device || "board"}, report ${b.seq}`;
    let status;
    if (b.mismatch) status = `board mismatch since event ${b.mismatch.seq}: ${b.mismatch.what}`;
    else if ((b.differs || []).length) status = `board differs on ${b.differs.join(", ")}`;
    else status = "board matches";
    $("#sensor-title").textContent = device;
    $("#sensor-status").textContent = status;
    $("#sensor-status").className = b.mismatch ? "alert-board-mismatch" : (b.differs || []).length ? "differs" : "matches";
  } else {
    $("#sensor").innerHTML = "";
    $("#sensor-title").textContent = "";
    $("#sensor-status").textContent = "no board report yet";
    $("#sensor-status").className = "";
  }
  const at = b && b.seq;
  const time = (ms) => (ms ? new Date(ms).toLocaleTimeString() : "");
  $("#reports").innerHTML = reports.map((r) =>
    `<li data-seq="${r.seq}" class="${r.seq === at ? "current" : ""}${r.seq > state.seq ? " future" : ""}">` +
    `<span class="n">${r.seq}</span> <span class="time">${esc(time(r.received_ms))}</span>` +
    `${r.ts_ms !== null && r.ts_ms !== undefined ? ` <span class="ts">+${(r.ts_ms / 1000).toFixed(1)} s</span>` : ""}` +
    ` <span class="dev">${esc(r.device || "")}</span>` +
    ` <span class="changed">${r.changed === null ? "first report" : r.changed.length ? esc(r.changed.join(" ")) : "no change"}</span></li>`).join("");
}

// The arbiter's `set`: move and reveal events in the log's JSON, one object a line or one
// array; read here only to name them for the confirm step (the server checks each field).
function readSetMoves(text) {
  const trimmed = text.trim();
  if (!trimmed) throw new Error("set: no moves given");
  if (trimmed.startsWith("[")) return JSON.parse(trimmed);
  return trimmed.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#")).map((l, i) => {
    try { return JSON.parse(l); } catch (error) { throw new Error(`set: line ${i + 1}: ${error.message}`); }
  });
}

function nameMove(m) {
  if (!m || typeof m !== "object") return JSON.stringify(m);
  if (m.type === "reveal") return `${m.side} reveals ${m.piece} on ${m.square}`;
  if (m.type === "move") return `${m.side} ${m.from !== undefined ? `${m.from}-` : ""}${m.to}${m.promotion ? `=${m.promotion}` : ""}`;
  return `${m.type} ${JSON.stringify(m)}`;
}

function askSet() {
  $("#set-error").textContent = "";
  try {
    const moves = readSetMoves($("#set-moves").value);
    state.setMoves = moves;
    $("#set-what").textContent = `append an arbiter set of ${moves.length} move${moves.length === 1 ? "" : "s"} after event ${state.game.frames.length - 1}: ${moves.map(nameMove).join(", ")}`;
    $("#set-confirm").hidden = false;
  } catch (error) {
    $("#set-error").textContent = error.message;
  }
}

async function confirmSet() {
  $("#set-confirm").hidden = true;
  const body = { type: "arbiter", side: "arbiter", decision: "set", moves: state.setMoves, text: $("#arbiter-text").value || "moves set from the console" };
  if (await arbiter(body)) $("#set-moves").value = "";
  else $("#set-error").textContent = $("#game-error").textContent;
}

// The arbiter's word, said in full before it is written: what the decision does to the game.
function ask(body, what) {
  state.pending = body;
  $("#confirm-what").textContent = what;
  $("#confirm").hidden = false;
  $("#confirm-yes").focus();
}

function rulingNamed(at) {
  return state.game.rulings.find((r) => r.at === at);
}

function askRuling(decision, at) {
  const r = rulingNamed(at);
  const named = r ? `ruling ${at} (${r.kind}${r.side ? ` against ${r.side}` : ""}, ${r.effect}${r.result ? `, result ${r.result}` : ""})` : `ruling ${at}`;
  const text = $("#arbiter-text").value || `${decision} from the console`;
  const effect = decision === "overturn"
    ? `its effect is undone${r && r.result ? ` and the result ${r.result} withdrawn: the game goes on` : ""}`
    : "it stands, marked as upheld by the arbiter";
  ask({ type: "arbiter", side: "arbiter", decision, ruling: at, text }, `${decision === "overturn" ? "Overturn" : "Uphold"} ${named}: ${effect}. Written to the log as event ${state.game.frames.length}, with the words "${text}".`);
}

function askDeclare() {
  if (state.game.result) {
    $("#game-error").textContent = `declare: the game is over (${state.game.result}); overturn the ruling that ended it first`;
    return;
  }
  const result = $("#declare-result").value;
  const text = $("#arbiter-text").value || "declared from the console";
  ask({ type: "arbiter", side: "arbiter", decision: "declare", result, text }, `Declare the result ${result}: the game ends now with ${result}. Written to the log as event ${state.game.frames.length}, with the words "${text}".`);
}

function askFoul() {
  const at = state.seq;
  const e = state.game.events.find((x) => x.seq === at);
  if (!e) {
    $("#game-error").textContent = "foul: pick the event the foul is at (the slider is at the start)";
    return;
  }
  const text = $("#arbiter-text").value || "foul noted by the arbiter";
  ask({ type: "arbiter", side: "arbiter", decision: "foul", ruling: at, text }, `Record a foul at event ${at} (${e.side}: ${e.text}): it counts toward the foul limit. Written to the log as event ${state.game.frames.length}, with the words "${text}".`);
}

function askWarn() {
  const text = $("#arbiter-text").value || "warning";
  ask({ type: "arbiter", side: "arbiter", decision: "warn", text }, `Give a warning: recorded in the log as event ${state.game.frames.length} with the words "${text}"; no effect on the game.`);
}

async function confirmWord() {
  $("#confirm").hidden = true;
  const body = state.pending;
  state.pending = null;
  if (body) await arbiter(body);
}

function jump(seq, lit) {
  state.seq = Math.min(Math.max(0, seq), state.game.frames.length - 1);
  state.lit = lit || state.lit;
  history.replaceState(null, "", `#/game/${encodeURIComponent(state.game.id)}?seq=${state.seq}`);
  renderGame();
}

async function arbiter(body) {
  const id = state.game.id;
  try {
    await api(`/api/games/${encodeURIComponent(id)}/arbiter`, { method: "POST", body: JSON.stringify(body) });
    $("#game-error").textContent = "";
    state.game = await api(`/api/games/${encodeURIComponent(id)}`);
    state.seq = state.game.frames.length - 1;
    state.pinned = null;
    renderGame();
    return true;
  } catch (error) {
    $("#game-error").textContent = error.message;
    return false;
  }
}

// ---- wiring ----

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function show(view) {
  $("#hall").hidden = view !== "hall";
  $("#game").hidden = view !== "game";
  const confirm = $("#confirm"); // none on the public page
  if (confirm) confirm.hidden = true;
}

function route() {
  const hash = location.hash || "#/";
  const game = /^#\/game\/([^?]+)(?:\?seq=(\d+))?/.exec(hash);
  if (game) return openGame(decodeURIComponent(game[1]), game[2] === undefined ? null : Number(game[2]));
  const hall = /^#\/hall\/?(.*)$/.exec(hash);
  return openHall(hall ? decodeURIComponent(hall[1]) : "");
}

document.addEventListener("DOMContentLoaded", () => {
  state.public = document.body.dataset.public === "true";
  const silent = new URLSearchParams(location.search).get("silent_s") || document.body.dataset.silentS;
  if (Number(silent) > 0) state.silentMs = Number(silent) * 1000;
  $("#token").value = state.token;
  $("#login").addEventListener("submit", (e) => {
    e.preventDefault();
    state.token = $("#token").value.trim();
    sessionStorage.setItem("referee-token", state.token);
    route();
  });
  $("#prefix-form").addEventListener("submit", (e) => {
    e.preventDefault();
    location.hash = `#/hall/${encodeURIComponent($("#prefix").value)}`;
  });
  $("#filter").addEventListener("input", (e) => { state.filter.text = e.target.value.trim(); applyFilter(); });
  $("#filter-alert").addEventListener("change", (e) => { state.filter.alert = e.target.value; applyFilter(); });
  $("#sound").checked = state.sound;
  $("#sound").addEventListener("change", (e) => {
    state.sound = e.target.checked;
    localStorage.setItem("referee-sound", state.sound ? "on" : "off");
  });
  $("#slider").addEventListener("input", (e) => jump(Number(e.target.value)));
  for (const list of ["#events", "#reports", "#moves"]) {
    $(list).addEventListener("click", (e) => {
      const at = e.target.closest("[data-seq]");
      if (at) jump(Number(at.dataset.seq));
    });
  }
  $("#flip").addEventListener("click", () => { state.flipped = !state.flipped; renderGame(); });
  $("#clock-ms").addEventListener("change", (e) => { state.millis = e.target.checked; renderClocks(); });
  $("#downloads").addEventListener("click", (e) => {
    const link = e.target.closest("[data-download]");
    if (!link) return;
    e.preventDefault();
    download(link.dataset.download);
  });
  $("#set-ask").addEventListener("click", askSet);
  $("#set-yes").addEventListener("click", confirmSet);
  $("#set-no").addEventListener("click", () => { $("#set-confirm").hidden = true; });
  $("#confirm-yes").addEventListener("click", confirmWord);
  $("#confirm-no").addEventListener("click", () => { $("#confirm").hidden = true; state.pending = null; });
  $("#rulings").addEventListener("click", (e) => {
    const link = e.target.closest("[data-jump]");
    if (link) {
      e.preventDefault();
      const ruling = e.target.closest("li[data-at]");
      state.pinned = Number(ruling.dataset.at);
      const evidence = [...ruling.querySelectorAll("[data-jump]")].map((a) => Number(a.dataset.jump));
      jump(Number(link.dataset.jump), evidence);
      return;
    }
    const act = e.target.closest("button[data-act]");
    if (act) askRuling(act.dataset.act, Number(act.dataset.ruling));
  });
  $("#declare").addEventListener("click", askDeclare);
  $("#foul").addEventListener("click", askFoul);
  $("#warn").addEventListener("click", askWarn);
  document.addEventListener("keydown", (e) => {
    if ($("#game").hidden || !state.game || e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA") return;
    if (e.key === "Escape" && $("#confirm")) { $("#confirm").hidden = true; state.pending = null; }
    if (e.key === "ArrowLeft") jump(state.seq - 1);
    if (e.key === "ArrowRight") jump(state.seq + 1);
    if (e.key === "Home") jump(0);
    if (e.key === "End") jump(state.game.frames.length - 1);
    if (e.key === "f") { state.flipped = !state.flipped; renderGame(); }
  });
  if (state.public) document.querySelectorAll(".arbiter-only").forEach((el) => el.remove());
  window.addEventListener("hashchange", route);
  loadGames()
    .catch((error) => setConn(`the games could not be read: ${error.message}`))
    .then(route);
});
