//! What every game shares, and nothing more: a start, FEN in and out, whose turn it is, the
//! legal moves, playing one, the outcome the board alone decides, and perft. Each game keeps
//! its own nouns (a xiangqi `Move` is two points, a draughts `Move` a capture route); the
//! [`Game`] trait names only what code outside a game needs to ask of any of them, and
//! [`AnyPosition`] dispatches over the variants with an enum, as shakmaty's
//! `VariantPosition` does. Adding a game is one folder here, one `impl Game` and one arm of
//! [`AnyPosition`]: every `match` below is exhaustive, so the compiler lists the places.

use std::fmt;

use super::{Variant, chess_gjq, draughts, renju, xiangqi};

/// The player who moves first (red in xiangqi, white in chess and draughts) or second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    First,
    Second,
}

/// What the board alone decides once the side to move cannot play on. Rules that depend on
/// the game's history or the players (repetition, move counts, time, claims) are the
/// referee's, not the board's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `winner` won: checkmate, or (xiangqi, draughts) no legal move.
    Decisive { winner: Player },
    /// Stalemate in chess (chess_gjq 6.3), or a position where neither side can mate (6.1).
    Draw,
}

/// A FEN the game cannot start from: the variant and its own reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadFen {
    pub variant: Variant,
    pub reason: String,
}

impl fmt::Display for BadFen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad {} FEN: {}", self.variant, self.reason)
    }
}

impl std::error::Error for BadFen {}

/// The small shape every game's position has.
pub trait Game: Clone + Sized {
    /// A move in the game's own terms.
    type Move: Clone + fmt::Display;
    /// A square (or point) of the board, in the game's own terms.
    type Square: Copy;
    /// The variant tag of this game.
    const VARIANT: Variant;

    /// The position the rules start from.
    fn startpos() -> Self;
    /// Reads the game's FEN; the error says why it is not a valid position.
    fn parse_fen(fen: &str) -> Result<Self, String>;
    fn fen(&self) -> String;
    fn to_move(&self) -> Player;
    fn legal_moves(&self) -> Vec<Self::Move>;
    /// Whose piece stands on each occupied square.
    fn occupants(&self) -> Vec<(Self::Square, Player)>;
    /// The square a move leaves and the one it reaches; `None` for a piece placed on the
    /// board rather than moved (a renju stone).
    fn move_squares(mv: &Self::Move) -> Option<(Self::Square, Self::Square)>;
    /// Plays a legal move (the caller checked it; an illegal one leaves a position the rules
    /// never reach).
    fn play_move(&mut self, mv: &Self::Move);
    /// `None` while the side to move can play on.
    fn outcome(&self) -> Option<Outcome>;
    /// Leaves of the legal-move tree `depth` plies deep. Each game counts in its own fastest
    /// way and by its own convention (draughts merges equal capture routes, Chess Gjq counts
    /// a hidden piece as the piece of its start square).
    fn perft(&self, depth: u32) -> u64;

    /// The start position, or the one `fen` describes.
    fn start(fen: Option<&str>) -> Result<Self, BadFen> {
        fen.map_or_else(
            || Ok(Self::startpos()),
            |f| {
                Self::parse_fen(f).map_err(|reason| BadFen {
                    variant: Self::VARIANT,
                    reason,
                })
            },
        )
    }
}

fn player(first: bool) -> Player {
    if first { Player::First } else { Player::Second }
}

fn loser_is(to_move: Player) -> Outcome {
    Outcome::Decisive {
        winner: match to_move {
            Player::First => Player::Second,
            Player::Second => Player::First,
        },
    }
}

impl Game for xiangqi::Position {
    type Move = xiangqi::Move;
    type Square = xiangqi::Square;
    const VARIANT: Variant = Variant::Xiangqi;

    fn startpos() -> Self {
        xiangqi::Position::startpos()
    }
    fn parse_fen(fen: &str) -> Result<Self, String> {
        xiangqi::Position::from_fen(fen).map_err(|e| e.to_string())
    }
    fn fen(&self) -> String {
        self.to_fen()
    }
    fn to_move(&self) -> Player {
        player(self.side_to_move() == xiangqi::Color::Red)
    }
    fn legal_moves(&self) -> Vec<Self::Move> {
        xiangqi::Position::legal_moves(self)
    }
    fn occupants(&self) -> Vec<(Self::Square, Player)> {
        (0..xiangqi::Square::COUNT)
            .filter_map(xiangqi::Square::from_index)
            .filter_map(|sq| {
                let piece = self.piece_at(sq)?;
                Some((sq, player(piece.color == xiangqi::Color::Red)))
            })
            .collect()
    }
    fn move_squares(mv: &Self::Move) -> Option<(Self::Square, Self::Square)> {
        Some((mv.from, mv.to))
    }
    fn play_move(&mut self, mv: &Self::Move) {
        self.play(*mv);
    }
    /// Mated or stalemated, the side to move loses (xiangqi 3.1, 3.2, 4.1).
    fn outcome(&self) -> Option<Outcome> {
        match self.status() {
            xiangqi::Status::Ongoing => None,
            xiangqi::Status::Checkmate | xiangqi::Status::Stalemate => {
                Some(loser_is(self.to_move()))
            }
        }
    }
    fn perft(&self, depth: u32) -> u64 {
        xiangqi::perft(self, depth)
    }
}

impl Game for chess_gjq::Position {
    type Move = chess_gjq::Move;
    type Square = chess_gjq::Square;
    const VARIANT: Variant = Variant::ChessGjq;

    fn startpos() -> Self {
        chess_gjq::Position::startpos()
    }
    fn parse_fen(fen: &str) -> Result<Self, String> {
        chess_gjq::Position::from_fen(fen).map_err(|e| e.to_string())
    }
    fn fen(&self) -> String {
        self.to_fen()
    }
    fn to_move(&self) -> Player {
        player(self.side_to_move() == chess_gjq::Color::White)
    }
    fn legal_moves(&self) -> Vec<Self::Move> {
        chess_gjq::Position::legal_moves(self)
    }
    fn occupants(&self) -> Vec<(Self::Square, Player)> {
        (0..chess_gjq::Square::COUNT)
            .filter_map(chess_gjq::Square::from_index)
            .filter_map(|sq| {
                let piece = self.piece_at(sq)?;
                Some((sq, player(piece.color == chess_gjq::Color::White)))
            })
            .collect()
    }
    fn move_squares(mv: &Self::Move) -> Option<(Self::Square, Self::Square)> {
        Some((mv.from, mv.to))
    }
    /// The move only: a hidden piece that moved waits for its reveal (chess_gjq 3.1.5).
    fn play_move(&mut self, mv: &Self::Move) {
        self.play(*mv);
    }
    /// Checkmate loses (5.1); stalemate (6.3) and a dead position (6.1) are draws.
    fn outcome(&self) -> Option<Outcome> {
        match self.status() {
            chess_gjq::Status::Checkmate => Some(loser_is(self.to_move())),
            chess_gjq::Status::Stalemate => Some(Outcome::Draw),
            chess_gjq::Status::Ongoing if self.is_dead_position() => Some(Outcome::Draw),
            chess_gjq::Status::Ongoing => None,
        }
    }
    fn perft(&self, depth: u32) -> u64 {
        chess_gjq::perft(self, depth)
    }
}

impl Game for draughts::Position {
    type Move = draughts::Move;
    type Square = draughts::Square;
    const VARIANT: Variant = Variant::Draughts;

    fn startpos() -> Self {
        draughts::Position::startpos()
    }
    fn parse_fen(fen: &str) -> Result<Self, String> {
        draughts::Position::from_fen(fen).map_err(|e| e.to_string())
    }
    fn fen(&self) -> String {
        self.to_fen()
    }
    fn to_move(&self) -> Player {
        player(self.side_to_move() == draughts::Color::White)
    }
    fn legal_moves(&self) -> Vec<Self::Move> {
        draughts::Position::legal_moves(self)
    }
    fn occupants(&self) -> Vec<(Self::Square, Player)> {
        self.pieces()
            .map(|(sq, piece)| (sq, player(piece.color == draughts::Color::White)))
            .collect()
    }
    fn move_squares(mv: &Self::Move) -> Option<(Self::Square, Self::Square)> {
        Some((mv.from(), mv.to()))
    }
    fn play_move(&mut self, mv: &Self::Move) {
        self.play(mv);
    }
    /// A side that cannot move, having no pieces or all blocked, loses (draughts 10.2).
    fn outcome(&self) -> Option<Outcome> {
        draughts::Position::legal_moves(self)
            .is_empty()
            .then(|| loser_is(self.to_move()))
    }
    fn perft(&self, depth: u32) -> u64 {
        draughts::perft(self, depth)
    }
}

impl Game for renju::Board {
    type Move = renju::Point;
    type Square = renju::Point;
    const VARIANT: Variant = Variant::Renju;

    fn startpos() -> Self {
        renju::Board::new()
    }
    fn parse_fen(fen: &str) -> Result<Self, String> {
        renju::Board::from_fen(fen).map_err(|e| e.to_string())
    }
    fn fen(&self) -> String {
        self.to_fen()
    }
    fn to_move(&self) -> Player {
        player(renju::Board::to_move(self) == renju::Stone::Black)
    }
    /// Every empty point, black's forbidden points included (what a forbidden stone costs
    /// is the referee's rule-set option); none once the game is over.
    fn legal_moves(&self) -> Vec<Self::Move> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        renju::Point::all()
            .filter(|&p| self.stone(p).is_none())
            .collect()
    }
    fn occupants(&self) -> Vec<(Self::Square, Player)> {
        renju::Point::all()
            .filter_map(|p| Some((p, player(self.stone(p)? == renju::Stone::Black))))
            .collect()
    }
    /// A stone is placed, not moved.
    fn move_squares(_mv: &Self::Move) -> Option<(Self::Square, Self::Square)> {
        None
    }
    fn play_move(&mut self, mv: &Self::Move) {
        // The caller checked the point is empty (the trait's contract).
        let _ = self.play(*mv);
    }
    /// A five wins (renju 2.1; white's overline counts, 2.2); a full board without one is a
    /// draw (5.1).
    fn outcome(&self) -> Option<Outcome> {
        match self.any_five() {
            Some((stone, _)) => Some(Outcome::Decisive {
                winner: player(stone == renju::Stone::Black),
            }),
            None => self.is_full().then_some(Outcome::Draw),
        }
    }
    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|&p| {
                let mut next = self.clone();
                next.play_move(&p);
                next.perft(depth - 1)
            })
            .sum()
    }
}

/// A position of any game: the one place that dispatches over the variants.
#[derive(Clone, Debug)]
pub enum AnyPosition {
    ChessGjq(chess_gjq::Position),
    Xiangqi(xiangqi::Position),
    Draughts(draughts::Position),
    Renju(renju::Board),
}

/// Runs `$body` with `$pos` bound to the inner position, whatever the variant.
macro_rules! each {
    ($any:expr, $pos:ident => $body:expr) => {
        match $any {
            AnyPosition::ChessGjq($pos) => $body,
            AnyPosition::Xiangqi($pos) => $body,
            AnyPosition::Draughts($pos) => $body,
            AnyPosition::Renju($pos) => $body,
        }
    };
}

impl AnyPosition {
    /// The start position of `variant`, or the one `fen` describes.
    pub fn start(variant: Variant, fen: Option<&str>) -> Result<AnyPosition, BadFen> {
        Ok(match variant {
            Variant::ChessGjq => AnyPosition::ChessGjq(Game::start(fen)?),
            Variant::Xiangqi => AnyPosition::Xiangqi(Game::start(fen)?),
            Variant::Draughts => AnyPosition::Draughts(Game::start(fen)?),
            Variant::Renju => AnyPosition::Renju(Game::start(fen)?),
        })
    }

    pub fn variant(&self) -> Variant {
        match self {
            AnyPosition::ChessGjq(_) => Variant::ChessGjq,
            AnyPosition::Xiangqi(_) => Variant::Xiangqi,
            AnyPosition::Draughts(_) => Variant::Draughts,
            AnyPosition::Renju(_) => Variant::Renju,
        }
    }

    pub fn fen(&self) -> String {
        each!(self, p => p.fen())
    }

    pub fn to_move(&self) -> Player {
        each!(self, p => Game::to_move(p))
    }

    /// The legal moves, each in its game's own notation (ICCS, UCI-like, PDN squares).
    pub fn legal_move_texts(&self) -> Vec<String> {
        each!(self, p => p.legal_moves().iter().map(ToString::to_string).collect())
    }

    pub fn outcome(&self) -> Option<Outcome> {
        each!(self, p => p.outcome())
    }

    pub fn perft(&self, depth: u32) -> u64 {
        each!(self, p => p.perft(depth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_start_position_round_trips_its_fen() {
        for &variant in Variant::ALL {
            let start = AnyPosition::start(variant, None).unwrap();
            let again = AnyPosition::start(variant, Some(&start.fen())).unwrap();
            assert_eq!(again.fen(), start.fen(), "{variant}");
            assert_eq!(start.to_move(), Player::First, "{variant}");
            assert_eq!(start.outcome(), None, "{variant}");
            assert_eq!(start.variant(), variant);
        }
    }

    #[test]
    fn start_move_counts() {
        let count = |v| {
            AnyPosition::start(v, None)
                .unwrap()
                .legal_move_texts()
                .len()
        };
        let counts: Vec<usize> = Variant::ALL.iter().map(|&v| count(v)).collect();
        assert_eq!(counts, [20, 44, 9, 225]);
    }

    #[test]
    fn a_bad_fen_names_its_variant() {
        let err = AnyPosition::start(Variant::Xiangqi, Some("not a fen")).unwrap_err();
        assert_eq!(err.variant, Variant::Xiangqi);
        assert!(err.to_string().starts_with("bad xiangqi FEN: "), "{err}");
    }

    #[test]
    fn outcomes_by_the_board() {
        let out = |v, fen| AnyPosition::start(v, Some(fen)).unwrap().outcome();
        let won = Some(Outcome::Decisive {
            winner: Player::First,
        });
        // Xiangqi: black's general e9 mated by the chariots a9 (rank 9) and b8 (rank 8).
        assert_eq!(
            out(Variant::Xiangqi, "R3k4/1R7/9/9/9/9/9/9/9/3K5 b - - 0 1"),
            won
        );
        // Xiangqi: stalemate loses too (4.1): the general e9 boxed in, nothing else to move.
        assert_eq!(
            out(Variant::Xiangqi, "4k4/R8/9/9/9/9/9/9/9/3K1R3 b - - 0 1"),
            won
        );
        // Chess: black king a8, white queen b6: black to move has no move and is not in check.
        assert_eq!(
            out(Variant::ChessGjq, "k7/8/1Q6/8/8/8/8/2K5 b - - 0 1"),
            Some(Outcome::Draw)
        );
        // Chess: back-rank mate.
        assert_eq!(
            out(Variant::ChessGjq, "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1"),
            won
        );
        // Draughts: black has no piece left and loses.
        assert_eq!(out(Variant::Draughts, "B:W31:B"), won);
        // Renju: black's five h8-l8 wins; white's six on row 1 wins too; a full board without
        // a five is drawn.
        assert_eq!(
            out(
                Variant::Renju,
                "15/15/15/15/15/15/15/7xxxxx3/15/15/15/15/15/15/oooo11 w"
            ),
            won
        );
        let white_six = "15/15/15/15/15/15/15/15/15/15/15/15/15/x1x1x1x1x1x4/oooooo9 b";
        assert_eq!(
            out(Variant::Renju, white_six),
            Some(Outcome::Decisive {
                winner: Player::Second
            })
        );
        let full: Vec<&str> = (0..15)
            .map(|r| match r % 4 {
                0 | 1 => "xxoxxoxxoxxoxxo",
                _ => "ooxooxooxooxoox",
            })
            .collect();
        let full = format!("{} w", full.join("/"));
        assert_eq!(out(Variant::Renju, &full), Some(Outcome::Draw));
        // King against king is a dead position in chess (6.1).
        assert_eq!(
            out(Variant::ChessGjq, "k7/8/8/8/8/8/8/7K w - - 0 1"),
            Some(Outcome::Draw)
        );
    }
}
