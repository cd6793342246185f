//! Why a reported move is not legal: either it breaks a rule of the game (an [`Irregularity`],
//! which the opponent may let stand, draughts 7.4 and 7.7), or it cannot be made on this board
//! at all (an [`Impossibility`]).

use std::fmt;

use super::diagonal::line;
use super::movegen::{CaptureSearch, Route, forward};
use super::moves::Move;
use super::piece::{Color, Piece, PieceKind};
use super::position::{Position, bit};
use super::resolve::Resolution;
use super::square::Square;

/// A rule of the game that a reported move breaks. `Display` gives the text for the ruling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Irregularity {
    /// The piece moved belongs to the side not on move (7.4: moving an opponent's piece).
    OpponentsPiece { square: Square, owner: Color },
    /// A man went somewhere other than one square diagonally forward (5.4).
    ManStep { played: Move },
    /// A man stepped backwards without capturing (5.4).
    ManBackwards { played: Move },
    /// A king left its diagonals (5.9).
    KingNotDiagonal { played: Move },
    /// A king flew over an occupied square without capturing (5.9).
    KingBlocked { played: Move, at: Square },
    /// A plain move while a capture was possible (6.1); `allowed` are every capture the
    /// majority rule (6.13) left, so the ruling names each, not one of them.
    CaptureCompulsory { allowed: Vec<Move>, played: Move },
    /// A capture that takes fewer pieces than the most that can be taken (6.13); `allowed`
    /// as above.
    Majority { allowed: Vec<Move>, played: Move },
    /// A capture that stops while it could go on (6.6-6.7).
    StoppedEarly { required: Move, played: Move },
    /// The start and end of a legal capture, but other pieces reported taken (7.4: removing
    /// fewer pieces than were captured, or pieces that were not jumped).
    WrongCaptures { required: Move, played: Move },
    /// A piece reported taken twice, or a route that needs to jump it twice (6.9, 6.12).
    JumpedTwice { square: Square },
    /// One of the mover's own pieces reported taken (6.8).
    OwnPiece { square: Square, owner: Color },
    /// The reported pieces can be taken, but the route cannot end on the reported square
    /// (6.2 for a man, landing right behind; 6.3 for a king).
    BadLanding { played: Move, kind: PieceKind },
    /// No capture route of this piece takes the reported pieces (6.2, 6.3).
    NoRoute { played: Move, kind: PieceKind },
}

impl Irregularity {
    /// The article broken, e.g. `draughts 6.13`.
    pub fn article(&self) -> &'static str {
        match self {
            Irregularity::OpponentsPiece { .. } | Irregularity::WrongCaptures { .. } => {
                "draughts 7.4"
            }
            Irregularity::ManStep { .. } | Irregularity::ManBackwards { .. } => "draughts 5.4",
            Irregularity::KingNotDiagonal { .. } | Irregularity::KingBlocked { .. } => {
                "draughts 5.9"
            }
            Irregularity::CaptureCompulsory { .. } => "draughts 6.1",
            Irregularity::Majority { .. } => "draughts 6.13",
            Irregularity::StoppedEarly { .. } => "draughts 6.6",
            Irregularity::JumpedTwice { .. } => "draughts 6.9",
            Irregularity::OwnPiece { .. } => "draughts 6.8",
            Irregularity::BadLanding { kind, .. } | Irregularity::NoRoute { kind, .. } => {
                match kind {
                    PieceKind::Man => "draughts 6.2",
                    PieceKind::King => "draughts 6.3",
                }
            }
        }
    }
}

impl fmt::Display for Irregularity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Irregularity::OpponentsPiece { square, owner } => {
                write!(
                    f,
                    "the piece on {square} is {owner}'s, not {}'s",
                    owner.opponent()
                )
            }
            Irregularity::ManStep { played } => write!(
                f,
                "a man moves one square diagonally forward; {} is not such a move",
                played.pdn()
            ),
            Irregularity::ManBackwards { played } => {
                write!(f, "a man does not move backwards: {}", played.pdn())
            }
            Irregularity::KingNotDiagonal { played } => {
                write!(
                    f,
                    "a king moves along a diagonal; {} is not such a move",
                    played.pdn()
                )
            }
            Irregularity::KingBlocked { played, at } => {
                write!(f, "a king's path {} is blocked at {at}", played.pdn())
            }
            Irregularity::CaptureCompulsory { allowed, played } => write!(
                f,
                "a capture was compulsory: {}; {} takes none",
                majority(allowed),
                played.pdn()
            ),
            Irregularity::Majority { allowed, played } => write!(
                f,
                "{}; {} takes {}",
                majority(allowed),
                played.pdn(),
                played.captures.len()
            ),
            Irregularity::StoppedEarly { required, played } => write!(
                f,
                "a capture goes on while a piece can be taken: {} stops after {}, {} takes {}",
                played.pdn_full(),
                pieces(played.captures.len()),
                required.pdn_full(),
                required.captures.len()
            ),
            Irregularity::WrongCaptures { required, played } => write!(
                f,
                "{} takes {}; the move reported took {}",
                required.pdn(),
                list(&required.captured_set()),
                if played.is_capture() {
                    list(&played.captures)
                } else {
                    "nothing".into()
                }
            ),
            Irregularity::JumpedTwice { square } => {
                write!(f, "piece {square} would be jumped twice")
            }
            Irregularity::OwnPiece { square, owner } => {
                write!(
                    f,
                    "the piece on {square} is {owner}'s own and cannot be captured"
                )
            }
            Irregularity::BadLanding { played, .. } => write!(
                f,
                "the capture does not end on a legal landing square: {} taking {}",
                played.pdn(),
                list(&played.captures)
            ),
            Irregularity::NoRoute { played, kind } => write!(
                f,
                "no {kind} capture from {} to {} takes {}",
                played.from(),
                played.to(),
                list(&played.captures)
            ),
        }
    }
}

/// Why a reported move cannot be made on the board at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Impossibility {
    /// No piece stands on the start square.
    EmptyFrom(Square),
    /// The end square holds a piece (other than the mover's own start square).
    Occupied(Square),
    /// A square reported captured is empty.
    NothingToCapture(Square),
    /// The start square is reported captured.
    CapturesItself(Square),
    /// Start and end are the same square and nothing was taken.
    NoMovement(Square),
}

impl fmt::Display for Impossibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Impossibility::EmptyFrom(sq) => write!(f, "there is no piece on {sq}"),
            Impossibility::Occupied(sq) => write!(f, "square {sq} is occupied"),
            Impossibility::NothingToCapture(sq) => {
                write!(f, "there is no piece on {sq} to capture")
            }
            Impossibility::CapturesItself(sq) => {
                write!(f, "the moving piece on {sq} cannot capture itself")
            }
            Impossibility::NoMovement(sq) => write!(f, "the piece on {sq} does not move"),
        }
    }
}

/// "none", "1 piece", "3 pieces".
fn pieces(n: usize) -> String {
    match n {
        0 => "none".into(),
        1 => "1 piece".into(),
        n => format!("{n} pieces"),
    }
}

/// "the majority rule allowed 2 captures of 2 pieces: 32x23x12, 33x22x13": every capture the
/// side could make, with its landing squares, so the arbiter can check each on the board.
fn majority(allowed: &[Move]) -> String {
    let taken = allowed.first().map_or(0, |mv| mv.captures.len());
    let captures = match allowed.len() {
        1 => "1 capture".to_string(),
        n => format!("{n} captures"),
    };
    let routes: Vec<String> = allowed.iter().map(Move::pdn_full).collect();
    format!(
        "the majority rule allowed {captures} of {}: {}",
        pieces(taken),
        routes.join(", ")
    )
}

/// "19, 23".
fn list(squares: &[Square]) -> String {
    squares
        .iter()
        .map(Square::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Judges a reported move that fits no legal move (`legal` are the position's legal moves).
pub(super) fn judge(
    pos: &Position,
    legal: &[Move],
    from: Square,
    to: Square,
    captures: Option<&[Square]>,
) -> Resolution {
    match examine(pos, legal, from, to, captures) {
        Ok((played, why)) => Resolution::Irregular { played, why },
        Err(impossible) => Resolution::Impossible(impossible),
    }
}

fn examine(
    pos: &Position,
    legal: &[Move],
    from: Square,
    to: Square,
    captures: Option<&[Square]>,
) -> Result<(Move, Irregularity), Impossibility> {
    let piece = pos.piece_at(from).ok_or(Impossibility::EmptyFrom(from))?;
    if to != from && pos.piece_at(to).is_some() {
        return Err(Impossibility::Occupied(to));
    }
    check_removable(pos, from, captures.unwrap_or_default())?;
    let reading =
        interpret(pos, piece, from, to, captures).ok_or(Impossibility::NoMovement(from))?;
    let why = if piece.color != pos.side_to_move() {
        Irregularity::OpponentsPiece {
            square: from,
            owner: piece.color,
        }
    } else {
        breach(pos, legal, piece, &reading, captures.unwrap_or_default())
    };
    Ok((reading.played, why))
}

/// Every reported capture must name a piece that can be lifted: not an empty square, and not
/// the moving piece itself.
fn check_removable(pos: &Position, from: Square, captures: &[Square]) -> Result<(), Impossibility> {
    for &sq in captures {
        if sq == from {
            return Err(Impossibility::CapturesItself(sq));
        }
        if pos.piece_at(sq).is_none() {
            return Err(Impossibility::NothingToCapture(sq));
        }
    }
    Ok(())
}

/// The physical reading of a reported move: what happens on the board if it stands.
struct Reading {
    played: Move,
    /// Whether `played` is a real capture route of the piece (one the rules of movement
    /// allow, even if the majority rule does not).
    routed: bool,
}

/// Reads the move as the piece's best physical route from `from` to `to` (through exactly the
/// reported captures, if given), or else as the piece simply moved and the reported pieces
/// lifted. `None` when the piece stays put and nothing is taken.
fn interpret(
    pos: &Position,
    piece: Piece,
    from: Square,
    to: Square,
    captures: Option<&[Square]>,
) -> Option<Reading> {
    let enemy = pos.of(piece.color.opponent());
    let route = match captures {
        Some([]) => None,
        Some(reported) => {
            let set = sorted(reported);
            let only = set.iter().fold(0, |m, sq| m | bit(sq.bit_index()));
            routes(pos, from, enemy & only)
                .into_iter()
                .find(|r| r.to() == to && r.captured_set() == set)
        }
        None => routes(pos, from, enemy)
            .into_iter()
            .filter(|r| r.to() == to)
            .reduce(|best, r| {
                if r.captures.len() > best.captures.len() {
                    r
                } else {
                    best
                }
            }),
    };
    if let Some(played) = route {
        return Some(Reading {
            played,
            routed: true,
        });
    }
    let lifted = dedup(captures.unwrap_or_default());
    if from == to && lifted.is_empty() {
        return None;
    }
    let played = Move {
        path: vec![from, to],
        captures: lifted,
    };
    Some(Reading {
        played,
        routed: false,
    })
}

/// Every capture route of the piece on `from` taking only pieces in `jumpable`, finished or
/// not, by the rules of movement alone (no majority rule).
fn routes(pos: &Position, from: Square, jumpable: u64) -> Vec<Move> {
    let mut found = Vec::new();
    let sink = |path: &[u8], taken: &[u8], mask| found.push(Move::build(path, taken, mask));
    CaptureSearch::new(pos, from.bit_index(), jumpable, sink)
        .every_prefix()
        .run();
    found
}

/// Which rule a move of the side to move breaks.
fn breach(
    pos: &Position,
    legal: &[Move],
    piece: Piece,
    reading: &Reading,
    reported: &[Square],
) -> Irregularity {
    let played = &reading.played;
    if let Some(why) = bad_report(pos, piece, reported) {
        return why;
    }
    if reading.routed {
        return too_few(legal, played);
    }
    if let Some(required) = legal
        .iter()
        .find(|mv| mv.from() == played.from() && mv.to() == played.to())
    {
        // Only the reported captures kept the move from fitting this legal one.
        return Irregularity::WrongCaptures {
            required: required.clone(),
            played: played.clone(),
        };
    }
    if !reported.is_empty() {
        return no_route(pos, piece, played);
    }
    bad_step(pos, legal, piece, played)
}

/// Faults in the reported captures themselves: a piece named twice (6.9) or one of the
/// mover's own (6.8).
fn bad_report(pos: &Position, piece: Piece, reported: &[Square]) -> Option<Irregularity> {
    if let Some(square) = repeated(reported) {
        return Some(Irregularity::JumpedTwice { square });
    }
    let own = |sq: &&Square| pos.piece_at(**sq).map(|p| p.color) == Some(piece.color);
    let square = *reported.iter().find(own)?;
    Some(Irregularity::OwnPiece {
        square,
        owner: piece.color,
    })
}

/// A real capture route that is not legal takes too few pieces: it stopped early (6.6) or
/// another route takes more (6.13).
fn too_few(legal: &[Move], played: &Move) -> Irregularity {
    let longer = legal
        .iter()
        .find(|mv| mv.path.starts_with(&played.path) && mv.path.len() > played.path.len());
    if let Some(required) = longer {
        return Irregularity::StoppedEarly {
            required: required.clone(),
            played: played.clone(),
        };
    }
    Irregularity::Majority {
        allowed: allowed_captures(legal),
        played: played.clone(),
    }
}

/// Reported captures that no capture route of the piece from start to end takes.
fn no_route(pos: &Position, piece: Piece, played: &Move) -> Irregularity {
    let set = played.captured_set();
    let only = set.iter().fold(0, |m, sq| m | bit(sq.bit_index()));
    if let Some(square) = jumped_twice(pos, played) {
        return Irregularity::JumpedTwice { square };
    }
    let elsewhere = routes(pos, played.from(), only)
        .into_iter()
        .any(|r| r.captured_set() == set);
    if elsewhere {
        return Irregularity::BadLanding {
            played: played.clone(),
            kind: piece.kind,
        };
    }
    Irregularity::NoRoute {
        played: played.clone(),
        kind: piece.kind,
    }
}

/// A plain move that is not legal: a wrong step for the piece (5.4, 5.9), or a right one
/// while a capture was compulsory (6.1).
fn bad_step(pos: &Position, legal: &[Move], piece: Piece, played: &Move) -> Irregularity {
    let (from, to) = (played.from().bit_index(), played.to().bit_index());
    let played = played.clone();
    let shape = line(from, to);
    let fault = match (piece.kind, shape) {
        (PieceKind::Man, Some((d, 1))) if forward(piece.color).contains(&d) => None,
        (PieceKind::Man, Some((_, 1))) => Some(Irregularity::ManBackwards {
            played: played.clone(),
        }),
        (PieceKind::Man, _) => Some(Irregularity::ManStep {
            played: played.clone(),
        }),
        (PieceKind::King, None) => Some(Irregularity::KingNotDiagonal {
            played: played.clone(),
        }),
        (PieceKind::King, Some(_)) => {
            blocked_at(pos, &played).map(|at| Irregularity::KingBlocked {
                played: played.clone(),
                at,
            })
        }
    };
    let allowed = allowed_captures(legal);
    match fault {
        Some(fault) => fault,
        // Unreachable for a position's own legal list: a well-formed step is then legal.
        None if allowed.is_empty() => Irregularity::ManStep { played },
        None => Irregularity::CaptureCompulsory { allowed, played },
    }
}

/// The first occupied square strictly between a king's start and end on their diagonal.
fn blocked_at(pos: &Position, played: &Move) -> Option<Square> {
    let (from, to) = (played.from().bit_index(), played.to().bit_index());
    let (direction, distance) = line(from, to)?;
    let ray = super::diagonal::ray(from, direction);
    let between = &ray[..distance - 1];
    between
        .iter()
        .find(|&&s| pos.occupied() & bit(s) != 0)
        .map(|&s| Square::of_index(s))
}

/// Every legal capture, in the order of their routes: where a capture is possible, the legal
/// moves are exactly the captures the majority rule allows (6.13), all taking the most.
fn allowed_captures(legal: &[Move]) -> Vec<Move> {
    let mut allowed: Vec<Move> = legal.iter().filter(|mv| mv.is_capture()).cloned().collect();
    allowed.sort_by(|a, b| a.path.cmp(&b.path));
    allowed
}

/// A piece the reported route could only take by jumping it twice (6.9): searches routes
/// over the reported pieces where a jumped piece may be jumped again, at most twice each.
fn jumped_twice(pos: &Position, played: &Move) -> Option<Square> {
    let set = played.captured_set();
    let mut walk = Rejump {
        pos,
        king: pos.piece_at(played.from()).is_some_and(Piece::is_king),
        from: played.from().bit_index(),
        to: played.to().bit_index(),
        only: set.iter().fold(0, |m, sq| m | bit(sq.bit_index())),
        once: 0,
        twice: 0,
        budget: 2 * set.len(),
    };
    walk.search(walk.from)
}

/// The search behind [`jumped_twice`].
struct Rejump<'p> {
    pos: &'p Position,
    king: bool,
    from: u8,
    to: u8,
    only: u64,
    once: u64,
    twice: u64,
    budget: usize,
}

impl Rejump<'_> {
    fn search(&mut self, at: u8) -> Option<Square> {
        if at == self.to && self.once == self.only && self.twice != 0 {
            return super::position::indices(self.twice)
                .next()
                .map(Square::of_index);
        }
        if self.budget == 0 {
            return None;
        }
        (0..4).find_map(|d| {
            self.jumps(at, d)
                .into_iter()
                .find_map(|(v, l)| self.jump(v, l))
        })
    }

    /// The (victim, landing) pairs along direction `d` from `at`.
    fn jumps(&self, at: u8, d: usize) -> Vec<(u8, u8)> {
        let ray = super::diagonal::ray(at, d);
        let empty = |s: u8| s == self.from || self.pos.occupied() & bit(s) == 0;
        let reach = if self.king {
            ray.iter().take_while(|&&s| empty(s)).count()
        } else {
            0
        };
        let Some(&victim) = ray
            .get(reach)
            .filter(|&&v| self.only & bit(v) != 0 && self.twice & bit(v) == 0)
        else {
            return Vec::new();
        };
        let behind = ray[reach + 1..].iter().take_while(|&&s| empty(s));
        behind
            .take(if self.king { 9 } else { 1 })
            .map(|&l| (victim, l))
            .collect()
    }

    fn jump(&mut self, victim: u8, landing: u8) -> Option<Square> {
        let (once, twice) = (self.once, self.twice);
        if once & bit(victim) != 0 {
            self.twice |= bit(victim);
        }
        self.once |= bit(victim);
        self.budget -= 1;
        let found = self.search(landing);
        (self.once, self.twice, self.budget) = (once, twice, self.budget + 1);
        found
    }
}

/// The first square named twice in a report.
fn repeated(squares: &[Square]) -> Option<Square> {
    squares
        .iter()
        .enumerate()
        .find(|(i, sq)| squares[..*i].contains(sq))
        .map(|(_, &sq)| sq)
}

fn sorted(squares: &[Square]) -> Vec<Square> {
    let mut set = squares.to_vec();
    set.sort_unstable();
    set
}

fn dedup(squares: &[Square]) -> Vec<Square> {
    squares
        .iter()
        .enumerate()
        .filter(|(i, sq)| !squares[..*i].contains(sq))
        .map(|(_, &sq)| sq)
        .collect()
}
