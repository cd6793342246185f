// Boards drawn as SVG from a game's FEN, one function per game, our own code (no library).
// Each returns an SVG string; `opts.small` drops the coordinates for the hall's thumbnails,
// `opts.marks` lists squares to outline (the last move's from and to, in the game's names),
// `opts.markColour` and `opts.markClass` say how (an electronic board's differing squares),
// `opts.flipped` draws the board turned round (the second player at the bottom).
"use strict";

const SVG_NS = 'xmlns="http://www.w3.org/2000/svg"';

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function markColour(opts) {
  return opts.markColour || "#1e6fd9";
}

function markClass(opts) {
  return opts.markClass ? `mark ${opts.markClass}` : "mark";
}

// ---- Xiangqi: 9 files a..i, ranks 0..9 (red at the bottom), pieces on the points. ----

const XQ_NAMES = {
  R: "俥", N: "傌", H: "傌", B: "相", E: "相", A: "仕", K: "帥", C: "炮", P: "兵",
  r: "車", n: "馬", h: "馬", b: "象", e: "象", a: "士", k: "將", c: "砲", p: "卒",
};

// The pieces of a FEN's board by square name: files named by `files`, the first row is rank
// `top` (xiangqi 9, chess 8), digits count empty points.
function fenBoard(fen, files, top) {
  const board = {};
  fen.split(" ")[0].split("/").forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (/[0-9]/.test(ch)) file += Number(ch);
      else { board[files[file] + (top - i)] = ch; file += 1; }
    }
  });
  return board;
}

function xiangqiBoard(fen) {
  return fenBoard(fen, "abcdefghi", 9);
}

function drawXiangqi(fen, opts = {}) {
  const cell = 40, pad = opts.small ? 22 : 34;
  const w = cell * 8 + pad * 2, h = cell * 9 + pad * 2;
  const fl = Boolean(opts.flipped);
  const x = (f) => pad + (fl ? 8 - f : f) * cell, y = (r) => pad + (fl ? r : 9 - r) * cell;
  const parts = [`<svg ${SVG_NS} viewBox="0 0 ${w} ${h}" class="board xiangqi${fl ? " flipped" : ""}"><rect width="${w}" height="${h}" fill="#f2d39b"/>`];
  const line = (x1, y1, x2, y2) => parts.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#5b3a1a" stroke-width="1.2"/>`);
  for (let r = 0; r <= 9; r++) line(x(0), y(r), x(8), y(r));
  for (let f = 0; f <= 8; f++) {
    if (f === 0 || f === 8) line(x(f), y(0), x(f), y(9));
    else { line(x(f), y(0), x(f), y(4)); line(x(f), y(5), x(f), y(9)); }
  }
  line(x(3), y(0), x(5), y(2)); line(x(5), y(0), x(3), y(2));
  line(x(3), y(7), x(5), y(9)); line(x(5), y(7), x(3), y(9));
  parts.push(`<text x="${w / 2}" y="${(y(4) + y(5)) / 2 + 6}" text-anchor="middle" font-size="18" fill="#5b3a1a">楚 河　　　漢 界</text>`);
  if (!opts.small) {
    for (let f = 0; f <= 8; f++) parts.push(`<text class="coord" x="${x(f)}" y="${h - 8}" text-anchor="middle">${"abcdefghi"[f]}</text>`);
    for (let r = 0; r <= 9; r++) parts.push(`<text class="coord" x="10" y="${y(r) + 4}" text-anchor="middle">${r}</text>`);
  }
  for (const sq of opts.marks || []) {
    const f = "abcdefghi".indexOf(sq[0]), r = Number(sq.slice(1));
    if (f >= 0) parts.push(`<rect x="${x(f) - 19}" y="${y(r) - 19}" width="38" height="38" fill="none" stroke="${markColour(opts)}" stroke-width="3" class="${markClass(opts)}"/>`);
  }
  const board = xiangqiBoard(fen);
  for (const [sq, ch] of Object.entries(board)) {
    const f = "abcdefghi".indexOf(sq[0]), r = Number(sq.slice(1));
    const red = ch === ch.toUpperCase();
    parts.push(`<g class="piece" data-square="${sq}"><circle cx="${x(f)}" cy="${y(r)}" r="17" fill="#fbeed5" stroke="${red ? "#b1221b" : "#222"}" stroke-width="2"/>` +
      `<text x="${x(f)}" y="${y(r) + 7}" text-anchor="middle" font-size="19" fill="${red ? "#b1221b" : "#222"}">${XQ_NAMES[ch] || esc(ch)}</text></g>`);
  }
  parts.push("</svg>");
  return parts.join("");
}

// ---- Chess Gjq: an 8x8 board, white at the bottom; X / x are hidden pieces. ----

const CHESS_GLYPHS = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };

function chessBoard(fen) {
  return fenBoard(fen, "abcdefgh", 8);
}

function drawChess(fen, opts = {}) {
  const cell = 44, pad = opts.small ? 4 : 22;
  const size = cell * 8 + pad * 2;
  const fl = Boolean(opts.flipped);
  const parts = [`<svg ${SVG_NS} viewBox="0 0 ${size} ${size}" class="board chess_gjq${fl ? " flipped" : ""}"><rect width="${size}" height="${size}" fill="#ddd"/>`];
  const x = (f) => pad + (fl ? 7 - f : f) * cell, y = (r) => pad + (fl ? r - 1 : 8 - r) * cell;
  for (let f = 0; f < 8; f++) {
    for (let r = 1; r <= 8; r++) {
      const dark = (f + r) % 2 === 1; // a1 is dark
      parts.push(`<rect x="${x(f)}" y="${y(r)}" width="${cell}" height="${cell}" fill="${dark ? "#b58863" : "#f0d9b5"}"/>`);
    }
  }
  if (!opts.small) {
    for (let f = 0; f < 8; f++) parts.push(`<text class="coord" x="${x(f) + cell / 2}" y="${size - 6}" text-anchor="middle">${"abcdefgh"[f]}</text>`);
    for (let r = 1; r <= 8; r++) parts.push(`<text class="coord" x="10" y="${y(r) + cell / 2 + 4}" text-anchor="middle">${r}</text>`);
  }
  for (const sq of opts.marks || []) {
    const f = "abcdefgh".indexOf(sq[0]), r = Number(sq.slice(1));
    if (f >= 0) parts.push(`<rect x="${x(f) + 2}" y="${y(r) + 2}" width="${cell - 4}" height="${cell - 4}" fill="none" stroke="${markColour(opts)}" stroke-width="3" class="${markClass(opts)}"/>`);
  }
  for (const [sq, ch] of Object.entries(chessBoard(fen))) {
    const f = "abcdefgh".indexOf(sq[0]), r = Number(sq.slice(1));
    const cx = x(f) + cell / 2, cy = y(r) + cell / 2;
    if (ch === "X" || ch === "x") {
      // A hidden piece: face down, only its colour shows (chess_gjq 3.1.2).
      const white = ch === "X";
      parts.push(`<g class="piece hidden" data-square="${sq}"><circle cx="${cx}" cy="${cy}" r="16" fill="${white ? "#fafafa" : "#333"}" stroke="#555" stroke-width="2" stroke-dasharray="4 3"/>` +
        `<text x="${cx}" y="${cy + 6}" text-anchor="middle" font-size="17" fill="${white ? "#555" : "#ddd"}">?</text></g>`);
    } else {
      parts.push(`<text class="piece" data-square="${sq}" x="${cx}" y="${cy + 13}" text-anchor="middle" font-size="36">${CHESS_GLYPHS[ch] || esc(ch)}</text>`);
    }
  }
  parts.push("</svg>");
  return parts.join("");
}

// ---- International draughts: 10x10, the 50 dark squares numbered from black's side. ----

function draughtsSquares(list) {
  const out = [];
  for (const raw of list.split(",")) {
    const item = raw.trim();
    if (!item) continue;
    const king = item.startsWith("K");
    const body = king ? item.slice(1) : item;
    const range = body.split("-").map(Number);
    const [a, b] = range.length === 2 ? range : [range[0], range[0]];
    for (let n = a; n <= b; n++) out.push({ n, king });
  }
  return out;
}

function draughtsBoard(fen) {
  const board = {};
  for (const part of fen.split(":").slice(1)) {
    const color = part[0];
    for (const { n, king } of draughtsSquares(part.slice(1))) board[n] = { color, king };
  }
  return board;
}

function draughtsPoint(n, flipped) {
  const row = Math.floor((n - 1) / 5), k = (n - 1) % 5;
  const col = row % 2 === 0 ? 2 * k + 1 : 2 * k;
  return flipped ? { row: 9 - row, col: 9 - col } : { row, col };
}

function drawDraughts(fen, opts = {}) {
  const cell = 36, pad = opts.small ? 4 : 8;
  const size = cell * 10 + pad * 2;
  const fl = Boolean(opts.flipped);
  const parts = [`<svg ${SVG_NS} viewBox="0 0 ${size} ${size}" class="board draughts${fl ? " flipped" : ""}"><rect width="${size}" height="${size}" fill="#ccc"/>`];
  for (let row = 0; row < 10; row++) {
    for (let col = 0; col < 10; col++) {
      const dark = (row + col) % 2 === 1;
      parts.push(`<rect x="${pad + col * cell}" y="${pad + row * cell}" width="${cell}" height="${cell}" fill="${dark ? "#7a5230" : "#f3e2c7"}"/>`);
    }
  }
  for (let n = 1; n <= 50; n++) {
    const { row, col } = draughtsPoint(n, fl);
    if (!opts.small) parts.push(`<text class="coord" x="${pad + col * cell + 3}" y="${pad + row * cell + 10}" fill="#f3e2c7">${n}</text>`);
  }
  for (const sq of opts.marks || []) {
    const { row, col } = draughtsPoint(Number(sq), fl);
    parts.push(`<rect x="${pad + col * cell + 2}" y="${pad + row * cell + 2}" width="${cell - 4}" height="${cell - 4}" fill="none" stroke="${markColour(opts)}" stroke-width="3" class="${markClass(opts)}"/>`);
  }
  for (const [n, piece] of Object.entries(draughtsBoard(fen))) {
    const { row, col } = draughtsPoint(Number(n), fl);
    const cx = pad + col * cell + cell / 2, cy = pad + row * cell + cell / 2;
    const white = piece.color === "W";
    parts.push(`<g class="piece" data-square="${n}"><circle cx="${cx}" cy="${cy}" r="14" fill="${white ? "#fff" : "#111"}" stroke="#888" stroke-width="2"/>` +
      (piece.king ? `<text x="${cx}" y="${cy + 5}" text-anchor="middle" font-size="14" fill="${white ? "#b1221b" : "#f5c542"}">♛</text>` : "") + "</g>");
  }
  parts.push("</svg>");
  return parts.join("");
}

// ---- Renju: 15x15 points a1..o15 (black's side, row 1, at the bottom), h8 the centre. ----

function renjuBoard(fen) {
  // Empty runs reach 15, two digits: spelt out as ones for fenBoard, which reads one digit.
  const rows = fen.split(" ")[0].replace(/\d+/g, (n) => "1".repeat(Number(n)));
  return fenBoard(rows, "abcdefghijklmno", 15);
}

function drawRenju(fen, opts = {}) {
  const cell = 26, pad = opts.small ? 14 : 28;
  const size = cell * 14 + pad * 2;
  const fl = Boolean(opts.flipped);
  const x = (f) => pad + (fl ? 14 - f : f) * cell, y = (r) => pad + (fl ? r - 1 : 15 - r) * cell;
  const files = "abcdefghijklmno";
  const parts = [`<svg ${SVG_NS} viewBox="0 0 ${size} ${size}" class="board renju${fl ? " flipped" : ""}"><rect width="${size}" height="${size}" fill="#e3b86b"/>`];
  for (let i = 0; i < 15; i++) {
    parts.push(`<line x1="${x(0)}" y1="${y(i + 1)}" x2="${x(14)}" y2="${y(i + 1)}" stroke="#4a3212" stroke-width="1"/>`);
    parts.push(`<line x1="${x(i)}" y1="${y(1)}" x2="${x(i)}" y2="${y(15)}" stroke="#4a3212" stroke-width="1"/>`);
  }
  for (const [f, r] of [[7, 8], [3, 4], [11, 4], [3, 12], [11, 12]]) {
    parts.push(`<circle cx="${x(f)}" cy="${y(r)}" r="3.5" fill="#4a3212"/>`);
  }
  if (!opts.small) {
    for (let f = 0; f < 15; f++) parts.push(`<text class="coord" x="${x(f)}" y="${size - 8}" text-anchor="middle">${files[f]}</text>`);
    for (let r = 1; r <= 15; r++) parts.push(`<text class="coord" x="11" y="${y(r) + 4}" text-anchor="middle">${r}</text>`);
  }
  for (const [sq, ch] of Object.entries(renjuBoard(fen))) {
    const f = files.indexOf(sq[0]), r = Number(sq.slice(1));
    const black = ch === "x";
    parts.push(`<circle class="piece" data-square="${sq}" cx="${x(f)}" cy="${y(r)}" r="11.5" fill="${black ? "#111" : "#fafafa"}" stroke="#333" stroke-width="1.2"/>`);
  }
  // Fifth-move offers standing while white chooses (a RIF opening rule): black stones drawn
  // faint, dashed, each one of the alternatives.
  for (const sq of opts.offers || []) {
    const f = files.indexOf(sq[0]), r = Number(sq.slice(1));
    if (f >= 0 && r >= 1) parts.push(`<circle class="offer" data-square="${sq}" cx="${x(f)}" cy="${y(r)}" r="11.5" fill="#111" fill-opacity="0.35" stroke="#111" stroke-width="1.2" stroke-dasharray="3 2"><title>offered fifth move ${sq}</title></circle>`);
  }
  for (const sq of opts.marks || []) {
    const f = files.indexOf(sq[0]), r = Number(sq.slice(1));
    if (f >= 0 && r >= 1) parts.push(`<circle cx="${x(f)}" cy="${y(r)}" r="4" fill="${opts.markColour || "#d9261c"}" class="${markClass(opts)}"/>`);
  }
  parts.push("</svg>");
  return parts.join("");
}

// Each game's drawing, by the game's log name: the one thing the console keeps per game (the
// rest comes from the games' specs, /api/variants). A test checks that every game the server
// describes has its drawing here.
const DRAWINGS = { xiangqi: drawXiangqi, chess_gjq: drawChess, draughts: drawDraughts, renju: drawRenju };

function drawBoard(variant, fen, opts) {
  const draw = Object.prototype.hasOwnProperty.call(DRAWINGS, variant) ? DRAWINGS[variant] : null;
  if (!draw) return `<div class="unknown error">this console has no board drawing for ${esc(variant)}</div>`;
  return draw(fen, opts);
}

if (typeof module !== "undefined") module.exports = { DRAWINGS, drawBoard, xiangqiBoard, chessBoard, draughtsBoard, draughtsPoint, renjuBoard };
