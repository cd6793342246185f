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
};

const $ = (sel) => document.querySelector(sel);

// ---- talking to the server ----

function headers() {
  const h = { "Content-Type": "application/json" };
  if (state.token) h.Authorization = `Bearer ${state.token}`;
  return h;
}

// The spectators' view reads the delayed copy of the same API.
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
async function listen(path, onMessage, onState) {
  const controller = new AbortController();
  state.stream = controller;
  for (;;) {
    try {
      onState("connecting");
      const response = await fetch(apiPath(path), { headers: headers(), signal: controller.signal });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        throw new Error(body.error || `${response.status}`);
      }
      onState("live");
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
          if (data) onMessage(event ? event[1] : "message", JSON.parse(data));
        }
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      onState(`reconnecting: ${error.message}`);
    }
    if (controller.signal.aborted) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function stopListening() {
  if (state.stream) state.stream.abort();
  state.stream = null;
}

// ---- clocks ----

function clockText(ms) {
  if (ms === null || ms === undefined) return "–";
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600), m = Math.floor((total % 3600) / 60), s = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`;
}

// The time left now: the running side's clock goes down from when the server measured it.
function clockNow(clock, side, receivedAt) {
  if (!clock) return null;
  const ms = clock[`${side}_ms`];
  if (ms === null || ms === undefined) return null;
  return clock.running === side ? ms - (Date.now() - receivedAt) : ms;
}

// ---- alerts: a board turns a colour by the kind of its latest ruling ----

function alertOf(ruling, variant) {
  if (!ruling) return null;
  // Electronic boards, common to every game: a derived move is no alert; a mismatch is the
  // card's alert while it stands (the frame's board.mismatch), whatever ruling came since;
  // a lifted piece and the result signal are notices for the arbiter, in their own colours.
  if (ruling.kind === "board_move") return null;
  if (ruling.kind === "board_mismatch") return "board-mismatch";
  if (ruling.kind === "board_touch") return "board-touch";
  if (ruling.kind === "board_result_signal") return "board-signal";
  // An illegal move keeps its colour even when it ends the game (the result is shown too).
  if (ruling.kind === "illegal_move") return "illegal";
  if (ruling.result) return "ended";
  // A game's own alerts (renju: black's stone on a forbidden point that white may claim).
  const own = (spec(variant)?.alerts || []).find((a) => a.kind === ruling.kind);
  if (own && ruling.effect === "none") return own.alert;
  switch (ruling.effect) {
    case "must_vary": return "vary";
    case "draw_claimable": return "claimable";
    case "correction_required": return "correction";
    case "foul": return "foul";
    default: break;
  }
  if (ruling.kind === "foul" || ruling.kind === "foul_limit") return "foul";
  return "notice";
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
  for (const game of games) {
    for (const a of game.alerts) {
      legend.insertAdjacentHTML("beforeend", ` <span class="alert-${esc(a.alert)}" title="${esc(a.meaning)}">${esc(a.alert.replace(/_/g, " "))} (${esc(game.name)})</span>`);
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

function hallCard(board) {
  const [first, second] = sideNames(board.variant);
  const shown = cardAlert(board);
  const alert = shown ? ` alert-${shown}` : "";
  const silent = board.silent ? " silent" : "";
  const kind = board.ruling ? ` · <span class="kind alert-${board.alert || "notice"}">${esc(board.ruling.kind)}</span>` : "";
  return `<a class="card${alert}${silent}" href="#/game/${encodeURIComponent(board.id)}" data-game="${esc(board.id)}">` +
    `<div class="title">${esc(board.id)}</div>` +
    (board.players ? `<div class="players">${esc(board.players[0] || "?")} – ${esc(board.players[1] || "?")}</div>` : "") +
    drawBoard(board.variant, board.fen, { small: true, marks: board.last || [] }) +
    `<div class="clocks"><span class="clock" data-side="${first}">${first} ${clockText(clockNow(board.clock, first, board.receivedAt))}</span>` +
    `<span class="clock" data-side="${second}">${second} ${clockText(clockNow(board.clock, second, board.receivedAt))}</span></div>` +
    `<div class="last">${esc(board.move || "")}</div>` +
    deviceBadge(board) +
    `<div class="result">${esc(board.result || "")}${kind}</div></a>`;
}

// The whole hall, drawn once per snapshot; after that only the board that changed is redrawn
// (a hall of 150 boards would otherwise redraw 150 SVGs per event).
function renderHall() {
  const grid = $("#hall-grid");
  const boards = [...state.boards.values()].sort((a, b) => a.id.localeCompare(b.id));
  grid.innerHTML = boards.map(hallCard).join("");
  $("#hall-count").textContent = `${boards.length} boards`;
}

function cardOf(id) {
  return [...document.querySelectorAll("#hall-grid .card")].find((c) => c.dataset.game === id);
}

function renderCard(id) {
  const board = state.boards.get(id);
  const card = board && cardOf(id);
  if (!card) return renderHall(); // a game new to the hall
  card.outerHTML = hallCard(board);
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
      span.textContent = `${side} ${clockText(clockNow(board.clock, side, board.receivedAt))}`;
    }
  }
}

// A frame replaces the board it is newer than; the server's receive time of its event is
// when the board was last heard from and when its running clock was last pressed.
function takeFrame(frame, isUpdate) {
  const old = state.boards.get(frame.id);
  if (isUpdate && old && frame.seq <= old.seq) return;
  const heard = frame.received_ms ? Math.min(Date.now(), frame.received_ms) : Date.now();
  const board = { ...(old || {}), ...frame, receivedAt: heard, heardAt: heard, silent: false };
  // A Gjq reveal completes the move before it (chess_gjq 9.3 "e2-e4车"): keep that move's
  // words and squares. Other events than moves keep the last move shown.
  if (isUpdate && old && frame.type !== "move" && !frame.made) {
    board.last = old.last;
    board.move = frame.type === "reveal" ? `${old.move || ""}${frame.move || ""}` : old.move;
  }
  const latest = (frame.rulings || []).filter((r) => r.kind !== "board_move").slice(-1)[0] || frame.latest;
  if (latest) { board.ruling = latest; board.alert = alertOf(latest, board.variant); }
  state.boards.set(frame.id, board);
}

function openHall(prefix) {
  stopListening();
  state.game = null;
  state.boards.clear();
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
    } else if (kind === "failed") {
      $("#hall-status").textContent = data.error;
    }
  }, (s) => { $("#hall-status").textContent = s; });
}

// Clocks tick and silent boards show without waiting for the server.
setInterval(() => {
  if (!$("#hall").hidden) tickHall();
}, 1000);

// ---- board view ----

async function openGame(id, seq) {
  stopListening();
  show("game");
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
  }, (s) => { $("#game-status").textContent = s; });
}

function rulingsInForce(game, seq) {
  const overturned = new Set(game.rulings.filter((r) => r.overturned_at && r.overturned_at <= seq).map((r) => r.at));
  return game.rulings.filter((r) => r.at <= seq && !overturned.has(r.at));
}

function renderGame() {
  const game = state.game;
  const frame = game.frames[state.seq];
  $("#slider").max = String(game.frames.length - 1);
  $("#slider").value = String(state.seq);
  $("#seq").textContent = `seq ${state.seq} of ${game.frames.length - 1}`;
  $("#board").innerHTML = drawBoard(game.variant, frame.fen, { marks: frame.last || [] });
  renderSensor(game, frame);
  const [first, second] = sideNames(game.variant);
  $("#clock-first").textContent = `${first} ${clockText(frame.clock ? frame.clock[`${first}_ms`] : null)}`;
  $("#clock-second").textContent = `${second} ${clockText(frame.clock ? frame.clock[`${second}_ms`] : null)}`;
  $("#game-result").textContent = game.result ? `result ${game.result}` : "in play";
  $("#game-tags").textContent = Object.entries(game.tags || {}).map(([name, value]) => `${name}: ${value}`).join(" · ");
  const lit = new Set(state.lit || []);
  $("#events").innerHTML = game.events.map((e) =>
    `<li data-seq="${e.seq}" class="ev-${esc(e.type)}${e.seq === state.seq ? " current" : ""}${lit.has(e.seq) ? " lit" : ""}${e.seq > state.seq ? " future" : ""}">` +
    `<span class="n">${e.seq}</span> ${e.type === "board" ? "" : `<span class="side">${esc(e.side)}</span> `}<span class="what">${esc(e.text)}</span>` +
    ((e.made || []).length ? ` <span class="made">⇒ ${esc(e.made.join(" "))}</span>` : "") + `</li>`).join("");
  const shown = rulingsInForce(game, state.seq);
  $("#rulings").innerHTML = shown.map((r) =>
    `<li class="ruling alert-${alertOf(r, game.variant) || "notice"}" data-at="${r.at}">` +
    `<div><b>${esc(r.kind)}</b> at event ${r.at}${r.side ? ` · ${esc(r.side)}` : ""} · ${esc(r.effect)}${r.result ? ` · ${esc(r.result)}` : ""} · <i>${esc(r.rule)}</i></div>` +
    `<div class="why">${esc(r.text)}</div>` +
    `<div class="evidence">evidence: ${(r.evidence || []).map((s) => `<a href="#" data-jump="${s}">${s}</a>`).join(" ")}</div>` +
    (state.public ? "" : `<div class="actions"><button data-act="uphold" data-ruling="${r.at}">uphold</button> <button data-act="overturn" data-ruling="${r.at}">overturn</button></div>`) +
    `</li>`).join("") || "<li>no ruling in force</li>";
  $("#open").textContent = (game.open || []).join("\n");
  const current = $("#events li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
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
    $("#sensor").innerHTML = drawBoard(game.variant, fen, { marks: b.differs || [], markColour: "#d62728", markClass: "differs" });
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
  $("#slider").addEventListener("input", (e) => jump(Number(e.target.value)));
  $("#events").addEventListener("click", (e) => {
    const li = e.target.closest("li[data-seq]");
    if (li) jump(Number(li.dataset.seq));
  });
  $("#reports").addEventListener("click", (e) => {
    const li = e.target.closest("li[data-seq]");
    if (li) jump(Number(li.dataset.seq));
  });
  $("#set-ask").addEventListener("click", askSet);
  $("#set-yes").addEventListener("click", confirmSet);
  $("#set-no").addEventListener("click", () => { $("#set-confirm").hidden = true; });
  $("#rulings").addEventListener("click", (e) => {
    const link = e.target.closest("[data-jump]");
    if (link) {
      e.preventDefault();
      const ruling = e.target.closest("li[data-at]");
      const evidence = [...ruling.querySelectorAll("[data-jump]")].map((a) => Number(a.dataset.jump));
      jump(Number(link.dataset.jump), evidence);
      return;
    }
    const act = e.target.closest("button[data-act]");
    if (act) arbiter({ type: "arbiter", side: "arbiter", decision: act.dataset.act, ruling: Number(act.dataset.ruling), text: $("#arbiter-text").value || `${act.dataset.act} from the console` });
  });
  $("#declare").addEventListener("click", () => arbiter({ type: "arbiter", side: "arbiter", decision: "declare", result: $("#declare-result").value, text: $("#arbiter-text").value || "declared from the console" }));
  $("#foul").addEventListener("click", () => arbiter({ type: "arbiter", side: "arbiter", decision: "foul", ruling: state.seq, text: $("#arbiter-text").value || "foul noted by the arbiter" }));
  $("#warn").addEventListener("click", () => arbiter({ type: "arbiter", side: "arbiter", decision: "warn", text: $("#arbiter-text").value || "warning" }));
  document.addEventListener("keydown", (e) => {
    if ($("#game").hidden || !state.game || e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA") return;
    if (e.key === "ArrowLeft") jump(state.seq - 1);
    if (e.key === "ArrowRight") jump(state.seq + 1);
    if (e.key === "Home") jump(0);
    if (e.key === "End") jump(state.game.frames.length - 1);
  });
  if (state.public) document.querySelectorAll(".arbiter-only").forEach((el) => el.remove());
  window.addEventListener("hashchange", route);
  loadGames()
    .catch((error) => { $("#hall-status").textContent = `the games could not be read: ${error.message}`; })
    .then(route);
});
