//! The verifiable shuffle (chess_gjq 3.1.4): before the first move the arbiter commits to the
//! secret set-up; after the game the set-up is opened, and the referee checks the opening
//! against the commitment and every reveal against the set-up.
//!
//! The log format has no event for this, so it rides on the arbiter event's free `text`
//! (decision `warn`, which changes nothing in the game), in two documented forms:
//!
//! - commitment: `shuffle-commit sha256=<64 hex digits>`
//! - opening:    `shuffle-open setup=<FEN placement> salt=<salt>`
//!
//! The commitment is the SHA-256 of the opening's text after `shuffle-open ` (the bytes
//! `setup=<placement> salt=<salt>`). The placement is the start position's board field with
//! every hidden piece written as what it really is, e.g.
//! `bnrqkrnb/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR`.

use sha2::{Digest, Sha256};

use crate::event::{Decision, EventKind, Side};
use crate::games::chess_gjq::{Color, Piece, Position, Role, Square, quota};
use crate::referee::Article;
use crate::referee::table::{Kind, Played};
use crate::referee::{Ruling, RulingKind};

use super::{ChessGjqTable, name};

const COMMIT: &str = "shuffle-commit ";
const OPEN: &str = "shuffle-open ";
const RULE: Article = Article::ChessGjq("3.1.4");

/// What the referee knows of the shuffle so far.
#[derive(Clone, Debug)]
pub struct Shuffle {
    /// The hidden pieces of the start position: only these squares need a set-up entry.
    hidden_at_start: Vec<(Square, Color)>,
    /// Seq and SHA-256 (lower-case hex) of a commitment made before the first move.
    commitment: Option<(u64, String)>,
    /// Seq of the opening and the set-up it opened, once it matched the commitment.
    opened: Option<(u64, Vec<(Square, Piece)>)>,
    /// Every reveal of a hidden piece whose start square is known.
    reveals: Vec<Reveal>,
    /// The move awaiting its reveal: the square it went to and its piece's start square.
    pending: Option<(Square, Square)>,
    /// Seq of the first move event, after which a commitment proves nothing.
    first_move: Option<u64>,
}

/// A reveal: who reported it, where, the piece's start square, what it was said to be.
#[derive(Clone, Copy, Debug)]
struct Reveal {
    seq: u64,
    side: Side,
    square: Square,
    origin: Square,
    piece: char,
}

/// What a move or reveal looked like before the table judged it.
pub struct Witness {
    seq: u64,
    event: Seen,
}

enum Seen {
    /// A move; `castles` when it is a king's two-square move.
    Move {
        from: Square,
        to: Square,
        castles: bool,
        pending_before: Option<Square>,
    },
    Reveal(Option<Reveal>),
}

impl Shuffle {
    pub fn new(start: &Position) -> Shuffle {
        let hidden_at_start = (0..Square::COUNT)
            .filter_map(Square::from_index)
            .filter_map(|sq| match start.piece_at(sq) {
                Some(p) if p.role.is_none() => Some((sq, p.color)),
                _ => None,
            })
            .collect();
        Shuffle {
            hidden_at_start,
            commitment: None,
            opened: None,
            reveals: Vec::new(),
            pending: None,
            first_move: None,
        }
    }
}

impl ChessGjqTable {
    /// A commitment or an opening, judged whenever it comes — the set-up is opened after
    /// the game — or `None` for any other event.
    pub fn shuffle_event(&mut self, seq: u64, played: &Played<Square>) -> Option<Vec<Ruling>> {
        let Kind::Other(EventKind::Arbiter {
            decision: Decision::Warn,
            text: Some(text),
            ..
        }) = played.kind
        else {
            return None;
        };
        if let Some(rest) = text.strip_prefix(COMMIT) {
            return Some(vec![self.commit(seq, rest)]);
        }
        text.strip_prefix(OPEN).map(|rest| self.open(seq, rest))
    }

    /// Notes a move or reveal before the table judges it (the piece's start square is
    /// known only before the position changes).
    pub(super) fn witness(&mut self, seq: u64, played: &Played<Square>) -> Option<Witness> {
        let seen = match played.kind {
            Kind::Move { from, to, .. } => {
                self.shuffle.first_move.get_or_insert(seq);
                let castles = self
                    .position
                    .piece_at(from)
                    .is_some_and(|p| p.role == Some(Role::King))
                    && from.file().abs_diff(to.file()) == 2;
                Seen::Move {
                    from,
                    to,
                    castles,
                    pending_before: self.position.pending_reveal(),
                }
            }
            Kind::Reveal { square, piece, .. } => {
                let origin = self.start_square_of(square);
                Seen::Reveal(origin.map(|origin| Reveal {
                    seq,
                    side: played.side,
                    square,
                    origin,
                    piece,
                }))
            }
            _ => return None,
        };
        Some(Witness { seq, event: seen })
    }

    /// After the table judged the witnessed event: remember where a hidden piece that just
    /// moved came from, and check a reveal against a set-up already opened.
    pub(super) fn witnessed(&mut self, witness: Option<Witness>) -> Vec<Ruling> {
        let Some(Witness { seq, event }) = witness else {
            return Vec::new();
        };
        match event {
            Seen::Move {
                from,
                to,
                castles,
                pending_before,
            } => {
                let now = self.position.pending_reveal();
                if let Some(square) = now.filter(|_| now != pending_before) {
                    // Castling: the rook-square piece jumps over the king (chess_gjq 4.1.3).
                    let corner =
                        Square::new(if to.file() > from.file() { 7 } else { 0 }, from.rank());
                    let origin = if castles {
                        corner.unwrap_or(from)
                    } else {
                        from
                    };
                    self.shuffle.pending = Some((square, origin));
                }
                Vec::new()
            }
            Seen::Reveal(None) => Vec::new(),
            Seen::Reveal(Some(reveal)) => {
                self.shuffle.reveals.push(reveal);
                let opened = self
                    .shuffle
                    .opened
                    .as_ref()
                    .map(|(at, setup)| (*at, setup.clone()));
                opened
                    .and_then(|(at, setup)| self.contradiction(&reveal, at, &setup, seq))
                    .into_iter()
                    .collect()
            }
        }
    }

    /// The start square of the hidden piece on `square`: where the pending move came from,
    /// or the square itself for a hidden piece that has not moved.
    fn start_square_of(&self, square: Square) -> Option<Square> {
        if let Some((to, origin)) = self.shuffle.pending
            && to == square
            && self.position.pending_reveal() == Some(square)
        {
            return Some(origin);
        }
        let unmoved = self
            .position
            .piece_at(square)
            .is_some_and(|p| p.role.is_none())
            && self.position.pending_reveal() != Some(square);
        unmoved.then_some(square)
    }

    fn commit(&mut self, seq: u64, rest: &str) -> Ruling {
        let hash = rest
            .strip_prefix("sha256=")
            .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(str::to_ascii_lowercase);
        let refuse = |why: String| {
            Ruling::notice(
                seq,
                RulingKind::InvalidEvent,
                Some(Side::Arbiter),
                RULE,
                format!("the shuffle commitment at event {seq} is not used: {why}"),
            )
        };
        let Some(hash) = hash else {
            return refuse(format!(
                "it must read \"{COMMIT}sha256=<64 hex digits>\", found \"{COMMIT}{rest}\""
            ));
        };
        if let Some((at, _)) = &self.shuffle.commitment {
            return refuse(format!("the set-up was committed already at event {at}"))
                .with_evidence(vec![*at, seq]);
        }
        if let Some(first) = self.shuffle.first_move {
            return refuse(format!(
                "it comes after the first move (event {first}); a set-up committed once play \
                 has begun proves nothing about the shuffle"
            ))
            .with_evidence(vec![first, seq]);
        }
        self.shuffle.commitment = Some((seq, hash.clone()));
        let text = format!(
            "the arbiter committed to the secret set-up at event {seq} (SHA-256 {hash}); it is \
             opened after the game and every reveal is checked against it (chess_gjq 3.1.4)"
        );
        Ruling::notice(
            seq,
            RulingKind::ArbiterDecision,
            Some(Side::Arbiter),
            RULE,
            text,
        )
    }

    fn open(&mut self, seq: u64, rest: &str) -> Vec<Ruling> {
        let mismatch = |text: String, evidence: Vec<u64>| {
            Ruling::notice(
                seq,
                RulingKind::ShuffleMismatch,
                Some(Side::Arbiter),
                RULE,
                text,
            )
            .with_evidence(evidence)
        };
        let Some((committed_at, hash)) = self.shuffle.commitment.clone() else {
            return vec![Ruling::notice(
                seq,
                RulingKind::InvalidEvent,
                Some(Side::Arbiter),
                RULE,
                format!(
                    "the set-up opened at event {seq} has no commitment made before the first \
                     move to be checked against: the reveals cannot be verified"
                ),
            )];
        };
        let opened_hash = hex::encode(Sha256::digest(rest.as_bytes()));
        if opened_hash != hash {
            return vec![mismatch(
                format!(
                    "the set-up opened at event {seq} does not match the commitment at event \
                     {committed_at}: the opening hashes to SHA-256 {opened_hash}, the commitment \
                     is {hash}. The set-up or salt was changed after the commitment, so no \
                     reveal can be checked; the arbiter must decide (chess_gjq 3.1.4)"
                ),
                vec![committed_at, seq],
            )];
        }
        let setup = match self.parse_setup(rest) {
            Ok(setup) => setup,
            Err(why) => {
                return vec![mismatch(
                    format!(
                        "the set-up opened at event {seq} matches the commitment at event \
                         {committed_at} but is not a set-up of this game: {why}"
                    ),
                    vec![committed_at, seq],
                )];
            }
        };
        self.shuffle.opened = Some((seq, setup.clone()));
        let reveals = self.shuffle.reveals.clone();
        let wrong: Vec<Ruling> = reveals
            .iter()
            .filter_map(|r| self.contradiction(r, seq, &setup, seq))
            .collect();
        let text = format!(
            "the set-up opened at event {seq} matches the commitment at event {committed_at}; \
             {} of the {} reveals so far contradict it (chess_gjq 3.1.4)",
            wrong.len(),
            reveals.len()
        );
        let mut out = vec![
            Ruling::notice(
                seq,
                RulingKind::ArbiterDecision,
                Some(Side::Arbiter),
                RULE,
                text,
            )
            .with_evidence(vec![committed_at, seq]),
        ];
        out.extend(wrong);
        out
    }

    /// The placement of `setup=<placement> salt=<salt>`, with a piece of the right colour
    /// (never a king) on every square hidden at the start, within each colour's piece set.
    fn parse_setup(&self, rest: &str) -> Result<Vec<(Square, Piece)>, String> {
        let placement = rest
            .strip_prefix("setup=")
            .and_then(|r| r.split_once(" salt="))
            .map(|(p, _)| p)
            .ok_or_else(|| format!("it must read \"{OPEN}setup=<placement> salt=<salt>\""))?;
        let board = read_placement(placement)?;
        let mut counts = [[0u8; 6]; 2];
        let mut setup = Vec::new();
        for &(sq, color) in &self.shuffle.hidden_at_start {
            let piece = board
                .iter()
                .find(|(s, _)| *s == sq)
                .map(|(_, p)| *p)
                .filter(|p| p.color == color && p.role.is_some_and(|r| r != Role::King))
                .ok_or_else(|| format!("it has no {color} piece other than a king on {sq}"))?;
            let role = piece.role.expect("filtered");
            let count = &mut counts[color.index()][role.index()];
            *count += 1;
            if *count > quota(role) {
                return Err(format!(
                    "it has more {color} {role}s than the {} of the piece set (chess_gjq 8.6)",
                    quota(role)
                ));
            }
            setup.push((sq, piece));
        }
        Ok(setup)
    }

    /// A ruling if the reveal contradicts the opened set-up; `at` is the event that shows it.
    fn contradiction(
        &self,
        reveal: &Reveal,
        opened_at: u64,
        setup: &[(Square, Piece)],
        at: u64,
    ) -> Option<Ruling> {
        let (_, said) = setup.iter().find(|(sq, _)| *sq == reveal.origin)?;
        let role = said.role?;
        if Role::from_char(reveal.piece) == Some(role) {
            return None;
        }
        let committed_at = self.shuffle.commitment.as_ref().map_or(0, |(c, _)| *c);
        let from = if reveal.origin == reveal.square {
            String::new()
        } else {
            format!(" (started on {})", reveal.origin)
        };
        let text = format!(
            "{} reported at event {} that the hidden piece on {}{from} is a {} ({}), but the \
             set-up committed at event {committed_at} and opened at event {opened_at} has a {role} \
             on {}: the reveal does not match the shuffle, and the arbiter must decide \
             (chess_gjq 3.1.4)",
            name(reveal.side),
            reveal.seq,
            reveal.square,
            Role::from_char(reveal.piece).map_or("piece not in the set", Role::name),
            reveal.piece,
            reveal.origin,
        );
        let mut evidence = vec![committed_at, reveal.seq, opened_at];
        evidence.sort_unstable();
        evidence.dedup();
        Some(
            Ruling::notice(
                at,
                RulingKind::ShuffleMismatch,
                Some(reveal.side),
                RULE,
                text,
            )
            .with_evidence(evidence),
        )
    }
}

/// A FEN board field (`/`-separated ranks from 8 down, digits for empty squares), face-up
/// pieces only.
fn read_placement(placement: &str) -> Result<Vec<(Square, Piece)>, String> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return Err(format!("the placement has {} ranks, not 8", ranks.len()));
    }
    let mut board = Vec::new();
    for (row, text) in (0u8..).zip(&ranks) {
        let rank = 7 - row;
        let mut file = 0u8;
        for c in text.chars() {
            if let Some(skip) = c.to_digit(10) {
                file += u8::try_from(skip).unwrap_or(u8::MAX);
                continue;
            }
            let piece = Piece::from_fen_char(c)
                .filter(|p| p.role.is_some())
                .ok_or_else(|| format!("\"{c}\" is not a face-up piece"))?;
            let sq = Square::new(file, rank)
                .ok_or_else(|| format!("rank {} has more than 8 squares", rank + 1))?;
            board.push((sq, piece));
            file += 1;
        }
        if file != 8 {
            return Err(format!("rank {} has {file} squares, not 8", rank + 1));
        }
    }
    Ok(board)
}
