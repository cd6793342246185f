//! What an electronic board's sensors read, in every game's terms: a [`Placement`] (one letter
//! or nothing per square, as the log format's `board` event writes it), and [`Sensed`], what
//! the referee needs of a game to derive moves from placements: how to read one, what a
//! position looks like to a board, and every ply the position can go on by, as a board may
//! show it. The search over plies (`referee::board`) is written once over this trait.

use super::{Game, Player, chess_gjq, draughts, renju, xiangqi};

/// What stood on each square of a board: cell `i` holds a letter of the game's FEN (or of its
/// PDN lists: `w`/`W` a white man/king, `b`/`B` black) or nothing. Cells run in reading
/// order of the FEN (top row first, left to right; draughts square 1 to 50), so that the
/// same board turned round by 180 degrees is the cells in reverse order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    cells: Vec<Option<u8>>,
}

impl Placement {
    /// A placement of these cells (a simulator's or a bridge's; a report is read with
    /// [`read`]).
    pub fn from_cells(cells: Vec<Option<u8>>) -> Placement {
        Placement { cells }
    }

    pub fn cells(&self) -> &[Option<u8>] {
        &self.cells
    }

    /// Puts `letter` (or nothing) on cell `index`.
    pub fn set(&mut self, index: usize, letter: Option<u8>) {
        if let Some(cell) = self.cells.get_mut(index) {
            *cell = letter;
        }
    }

    /// The same board turned round by 180 degrees.
    pub fn turned(&self) -> Placement {
        let mut cells = self.cells.clone();
        cells.reverse();
        Placement { cells }
    }

    /// The cells where `self` (a position) and `shown` (a report) disagree, read by `G`.
    pub fn differences<G: Sensed>(&self, shown: &Placement) -> Vec<usize> {
        self.cells
            .iter()
            .zip(&shown.cells)
            .enumerate()
            .filter(|(_, (actual, shown))| !G::shows(**shown, **actual))
            .map(|(i, _)| i)
            .collect()
    }

    /// Whether a board showing `shown` shows this position, by a game's `shows`.
    pub fn is_shown_by_rules(
        &self,
        shown: &Placement,
        shows: fn(Option<u8>, Option<u8>) -> bool,
    ) -> bool {
        self.cells.len() == shown.cells.len()
            && self
                .cells
                .iter()
                .zip(&shown.cells)
                .all(|(actual, shown)| shows(*shown, *actual))
    }

    /// Whether a board showing `shown` shows this position.
    pub fn is_shown_by<G: Sensed>(&self, shown: &Placement) -> bool {
        self.cells.len() == shown.cells.len()
            && self
                .cells
                .iter()
                .zip(&shown.cells)
                .all(|(actual, shown)| G::shows(*shown, *actual))
    }
}

/// One ply as the log would write it, with the game's own squares: a move (a renju stone has
/// no `from`; a chess_gjq hidden piece shown face up on arrival adds its `reveal`), or the
/// reveal of a chess_gjq piece that moved face down earlier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ply<S> {
    Move {
        player: Player,
        from: Option<S>,
        to: S,
        /// A chess promotion letter, as events write it (`q r b n`).
        promotion: Option<char>,
        /// The squares a draughts capture took.
        captures: Option<Vec<S>>,
        /// chess_gjq: the piece a hidden mover turned out to be.
        reveal: Option<Revealed>,
    },
    Reveal {
        player: Player,
        square: S,
        revealed: Revealed,
    },
}

/// What a chess_gjq reveal says: the piece (`Q R B N P`), and what a pawn on the last rank
/// became.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revealed {
    pub piece: char,
    pub promotion: Option<char>,
}

/// What deriving moves from a board's placements needs of a game.
pub trait Sensed: Game {
    /// How many squares a placement has.
    const CELLS: usize;
    /// The most cells one ply changes (a castling four, a xiangqi move two, a renju stone
    /// one, a draughts capture its route's end and every piece it takes): a search that is
    /// further from a placement than its remaining plies can change stops there.
    const MOST_CHANGED: usize;
    /// Whether pieces are placed rather than moved (renju stones).
    const PLACED: bool;
    /// Whether a move lists the squares of what it takes (draughts).
    const LISTS_CAPTURES: bool;

    /// The square of cell `index` (`index < CELLS`).
    fn square_of(index: usize) -> Self::Square;
    /// The placement as the `board` event writes it; the error says what cannot be read.
    fn read_placement(text: &str) -> Result<Placement, String>;
    /// What a board shows of this position (hidden pieces as `X`/`x`).
    fn placement(&self) -> Placement;
    /// Whether a board reporting `shown` on a square agrees with the position's `actual`:
    /// the same, or a colour the board reports where it cannot tell the kind.
    fn shows(shown: Option<u8>, actual: Option<u8>) -> bool;
    /// Whose piece a letter is.
    fn owner(letter: u8) -> Option<Player>;
    /// Every ply this position can go on by, with the position after it, as a board showing
    /// `shown` may have seen it (chess_gjq: a hidden mover shown face up is revealed).
    fn plies(&self, shown: &Placement) -> Vec<(Ply<Self::Square>, Self)>;
    /// Whether `ply`, the last of a reading, agrees with the placements the board reported
    /// since the last commit point (`seen`): asked only where several readings end in the
    /// placement read, to tell them apart by what the board showed on the way. Every ply
    /// agrees unless the game says otherwise.
    fn agrees_with_reports(_ply: &Ply<Self::Square>, _seen: &[Placement]) -> bool {
        true
    }
    /// Whether the placement is the players' result signal (chess e-boards: both kings in
    /// the centre), never a move.
    fn result_signal(_shown: &Placement) -> bool {
        false
    }
}

/// The row (from the top) and file of cell `index` on a board `width` squares wide.
fn row_file(index: usize, width: usize) -> (u8, u8) {
    let small = |n: usize| u8::try_from(n).expect("a board is smaller than 256 squares a side");
    (small(index / width), small(index % width))
}

/// Reads a placement for `variant`'s board (the log's `board` event).
pub fn read(variant: super::Variant, text: &str) -> Result<Placement, String> {
    use super::Variant;
    match variant {
        Variant::ChessGjq => chess_gjq::Position::read_placement(text),
        Variant::Xiangqi => xiangqi::Position::read_placement(text),
        Variant::Draughts => draughts::Position::read_placement(text),
        Variant::Renju => renju::Board::read_placement(text),
    }
}

/// Writes a placement as `variant`'s `board` event does.
pub fn write(variant: super::Variant, placement: &Placement) -> String {
    use super::Variant;
    let width = match variant {
        Variant::ChessGjq => Some(8),
        Variant::Xiangqi => Some(9),
        Variant::Renju => Some(15),
        Variant::Draughts => None,
    };
    write_placement(placement, width)
}

/// The square name of a placement's cell in `variant` (`e2`, `h9`, `32`).
pub fn cell_name(variant: super::Variant, index: usize) -> String {
    use super::Variant;
    match variant {
        Variant::ChessGjq => chess_gjq::Position::square_of(index).to_string(),
        Variant::Xiangqi => xiangqi::Position::square_of(index).to_string(),
        Variant::Draughts => draughts::Position::square_of(index).to_string(),
        Variant::Renju => renju::Board::square_of(index).to_string(),
    }
}

/// Reads FEN rows (`/`-separated, top row first, runs of empty squares as numbers) of a
/// `width` x `height` board whose pieces are the letters in `letters`.
fn read_rows(text: &str, width: usize, height: usize, letters: &str) -> Result<Placement, String> {
    let rows: Vec<&str> = text.split('/').collect();
    if rows.len() != height {
        return Err(format!(
            "the placement has {} rows, expected {height}",
            rows.len()
        ));
    }
    let mut cells = Vec::with_capacity(width * height);
    for (r, row) in rows.iter().enumerate() {
        let start = cells.len();
        let mut run = 0usize;
        for c in row.bytes() {
            if c.is_ascii_digit() {
                run = run * 10 + usize::from(c - b'0');
                if run > width {
                    return Err(format!(
                        "row {} of the placement has more than {width} squares",
                        r + 1
                    ));
                }
                continue;
            }
            cells.extend(std::iter::repeat_n(None, run));
            run = 0;
            if !letters.as_bytes().contains(&c) {
                return Err(format!(
                    "unknown letter {} in row {} of the placement (expected one of {letters} \
                     or a number of empty squares)",
                    crate::quote::quote(&char::from(c).to_string()),
                    r + 1
                ));
            }
            cells.push(Some(c));
        }
        cells.extend(std::iter::repeat_n(None, run));
        let len = cells.len() - start;
        if len != width {
            return Err(format!(
                "row {} of the placement has {len} squares, expected {width}",
                r + 1
            ));
        }
    }
    Ok(Placement { cells })
}

/// The board field of a FEN: its first word.
fn board_field(fen: &str) -> &str {
    fen.split_whitespace().next().unwrap_or("")
}

/// chess and xiangqi: the letter itself, or a colour (`X` white/red, `x` black) for a piece
/// the board cannot name.
fn shows_letter_or_colour(shown: Option<u8>, actual: Option<u8>) -> bool {
    match (shown, actual) {
        (Some(b'X'), Some(a)) => a.is_ascii_uppercase(),
        (Some(b'x'), Some(a)) => a.is_ascii_lowercase(),
        (s, a) => s == a,
    }
}

fn owner_by_case(letter: u8) -> Option<Player> {
    if letter.is_ascii_uppercase() {
        Some(Player::First)
    } else if letter.is_ascii_lowercase() {
        Some(Player::Second)
    } else {
        None
    }
}

/// The plies of a game with no hidden pieces: each legal move, played.
fn legal_plies<G: Game>(
    position: &G,
    ply: impl Fn(&G, &G::Move) -> Ply<G::Square>,
) -> Vec<(Ply<G::Square>, G)> {
    position
        .legal_moves()
        .iter()
        .map(|mv| {
            let mut next = position.clone();
            next.play_move(mv);
            (ply(position, mv), next)
        })
        .collect()
}

impl Sensed for chess_gjq::Position {
    const PLACED: bool = false;
    const LISTS_CAPTURES: bool = false;
    const CELLS: usize = 64;
    const MOST_CHANGED: usize = 4;

    fn square_of(index: usize) -> chess_gjq::Square {
        let (row, file) = row_file(index, 8);
        chess_gjq::Square::new(file, 7 - row).expect("a cell is a square")
    }

    fn read_placement(text: &str) -> Result<Placement, String> {
        read_rows(text, 8, 8, "KQRBNPXkqrbnpx")
    }

    fn placement(&self) -> Placement {
        read_rows(board_field(&self.to_fen()), 8, 8, "KQRBNPXkqrbnpx")
            .expect("a position's FEN reads")
    }

    fn shows(shown: Option<u8>, actual: Option<u8>) -> bool {
        shows_letter_or_colour(shown, actual)
    }

    fn owner(letter: u8) -> Option<Player> {
        owner_by_case(letter)
    }

    fn plies(&self, shown: &Placement) -> Vec<(Ply<chess_gjq::Square>, Self)> {
        let player = Game::to_move(self);
        // A piece that moved face down: its reveal, if the board shows it face up.
        if let Some(square) = self.pending_reveal() {
            return reveals_shown(self, square, shown)
                .into_iter()
                .map(|(revealed, next)| {
                    let ply = Ply::Reveal {
                        player: other(player),
                        square,
                        revealed,
                    };
                    (ply, next)
                })
                .collect();
        }
        let mut out = Vec::new();
        for mv in self.legal_moves() {
            let mut next = self.clone();
            next.play(mv);
            let ply = |reveal| Ply::Move {
                player,
                from: Some(mv.from),
                to: mv.to,
                promotion: mv.promotion.map(|r| r.upper_char().to_ascii_lowercase()),
                captures: None,
                reveal,
            };
            let reveals = if next.pending_reveal() == Some(mv.to) {
                reveals_shown(&next, mv.to, shown)
            } else {
                Vec::new()
            };
            if reveals.is_empty() {
                out.push((ply(None), next));
            }
            for (revealed, after) in reveals {
                out.push((ply(Some(revealed)), after));
            }
        }
        out
    }

    /// A piece turned up on the last rank was a pawn promoted there (4.1.2.6.2 (3)) only if
    /// a report since the commit showed the mover's pawn on that square, and the piece
    /// itself only if none did: the player turns the hidden piece up, and a pawn is then
    /// replaced by what it became. The same for a revealed pawn's own promotion.
    fn agrees_with_reports(ply: &Ply<chess_gjq::Square>, seen: &[Placement]) -> bool {
        let (player, to, promoted, piece) = match ply {
            Ply::Move {
                player,
                to,
                promotion,
                reveal,
                ..
            } => (
                *player,
                *to,
                promotion.is_some() || reveal.is_some_and(|r| r.promotion.is_some()),
                reveal.map(|r| r.piece),
            ),
            Ply::Reveal {
                player,
                square,
                revealed,
            } => (
                *player,
                *square,
                revealed.promotion.is_some(),
                Some(revealed.piece),
            ),
        };
        let (last, pawn) = match player {
            Player::First => (7, b'P'),
            Player::Second => (0, b'p'),
        };
        if to.rank() != last {
            return true;
        }
        let cell = usize::from(7 - to.rank()) * 8 + usize::from(to.file());
        let pawn_seen = seen
            .iter()
            .any(|s| s.cells().get(cell) == Some(&Some(pawn)));
        if promoted {
            pawn_seen
        } else {
            piece.is_none_or(|p| p == 'P') || !pawn_seen
        }
    }

    /// Both kings on d4, e4, d5 or e5.
    fn result_signal(shown: &Placement) -> bool {
        let centre = |c: &Option<u8>| {
            (27..=28)
                .chain(35..=36)
                .filter(|&i| shown.cells.get(i) == Some(c))
                .count()
        };
        centre(&Some(b'K')) == 1 && centre(&Some(b'k')) == 1
    }
}

fn other(player: Player) -> Player {
    match player {
        Player::First => Player::Second,
        Player::Second => Player::First,
    }
}

/// What the piece a board shows face up on `square` can be, where `position` waits for its
/// reveal, with the position after each reveal: none while it shows the piece face down;
/// on the last rank a queen, rook, bishop or knight may also be a pawn promoted there
/// (chess_gjq 4.1.2.6.2 (3)), which the board cannot tell apart unless the pieces revealed
/// so far rule one out.
fn reveals_shown(
    position: &chess_gjq::Position,
    square: chess_gjq::Square,
    shown: &Placement,
) -> Vec<(Revealed, chess_gjq::Position)> {
    let cell = usize::from(7 - square.rank()) * 8 + usize::from(square.file());
    let Some(Some(letter)) = shown.cells.get(cell).copied() else {
        return Vec::new();
    };
    let letter = char::from(letter);
    let piece = letter.to_ascii_uppercase();
    let (Some(role), Some(mover)) = (
        chess_gjq::Role::from_char(piece).filter(|_| piece != 'X' && piece != 'K'),
        position.piece_at(square),
    ) else {
        return Vec::new();
    };
    if (mover.color == chess_gjq::Color::White) != letter.is_ascii_uppercase() {
        return Vec::new();
    }
    let mut readings = vec![Revealed {
        piece,
        promotion: None,
    }];
    if piece != 'P' {
        readings.push(Revealed {
            piece: 'P',
            promotion: Some(piece),
        });
    }
    readings
        .into_iter()
        .filter_map(|r| {
            let promotion = r.promotion.and_then(chess_gjq::Role::from_char);
            let role = if r.piece == 'P' {
                chess_gjq::Role::Pawn
            } else {
                role
            };
            let mut next = position.clone();
            next.reveal(square, role, promotion).ok()?;
            Some((r, next))
        })
        .collect()
}

impl Sensed for xiangqi::Position {
    const PLACED: bool = false;
    const LISTS_CAPTURES: bool = false;
    const CELLS: usize = 90;
    const MOST_CHANGED: usize = 2;

    fn square_of(index: usize) -> xiangqi::Square {
        let (row, file) = row_file(index, 9);
        xiangqi::Square::new(file, 9 - row).expect("a cell is a square")
    }

    fn read_placement(text: &str) -> Result<Placement, String> {
        read_rows(text, 9, 10, "KABNRCPXkabnrcpx")
    }

    fn placement(&self) -> Placement {
        read_rows(board_field(&self.to_fen()), 9, 10, "KABNRCPXkabnrcpx")
            .expect("a position's FEN reads")
    }

    fn shows(shown: Option<u8>, actual: Option<u8>) -> bool {
        shows_letter_or_colour(shown, actual)
    }

    fn owner(letter: u8) -> Option<Player> {
        owner_by_case(letter)
    }

    fn plies(&self, _shown: &Placement) -> Vec<(Ply<xiangqi::Square>, Self)> {
        legal_plies(self, |pos, mv| Ply::Move {
            player: Game::to_move(pos),
            from: Some(mv.from),
            to: mv.to,
            promotion: None,
            captures: None,
            reveal: None,
        })
    }
}

impl Sensed for renju::Board {
    const PLACED: bool = true;
    const LISTS_CAPTURES: bool = false;
    const CELLS: usize = 225;
    const MOST_CHANGED: usize = 1;

    fn square_of(index: usize) -> renju::Point {
        let (row, file) = row_file(index, 15);
        renju::Point::new(file, 14 - row).expect("a cell is a point")
    }

    fn read_placement(text: &str) -> Result<Placement, String> {
        read_rows(text, 15, 15, "xo")
    }

    fn placement(&self) -> Placement {
        read_rows(board_field(&self.to_fen()), 15, 15, "xo").expect("a board's FEN reads")
    }

    fn shows(shown: Option<u8>, actual: Option<u8>) -> bool {
        shown == actual
    }

    fn owner(letter: u8) -> Option<Player> {
        match letter {
            b'x' => Some(Player::First),
            b'o' => Some(Player::Second),
            _ => None,
        }
    }

    fn plies(&self, shown: &Placement) -> Vec<(Ply<renju::Point>, Self)> {
        // A stone stays where it is placed: only a point the board shows the mover's stone
        // on can be a ply of any sequence that ends in `shown`.
        let player = Game::to_move(self);
        let letter = if player == Player::First { b'x' } else { b'o' };
        self.legal_moves()
            .into_iter()
            .filter(|p| {
                let index = usize::from(14 - p.rank()) * 15 + usize::from(p.file());
                shown.cells.get(index) == Some(&Some(letter))
            })
            .map(|p| {
                let mut next = self.clone();
                next.play_move(&p);
                let ply = Ply::Move {
                    player,
                    from: None,
                    to: p,
                    promotion: None,
                    captures: None,
                    reveal: None,
                };
                (ply, next)
            })
            .collect()
    }
}

impl Sensed for draughts::Position {
    const PLACED: bool = false;
    const LISTS_CAPTURES: bool = true;
    const CELLS: usize = 50;
    const MOST_CHANGED: usize = 22;

    fn square_of(index: usize) -> draughts::Square {
        draughts::Square::new(u64::try_from(index).expect("a cell index") + 1)
            .expect("a cell is a square")
    }

    fn read_placement(text: &str) -> Result<Placement, String> {
        read_lists(text)
    }

    fn placement(&self) -> Placement {
        let fen = self.to_fen();
        read_lists(fen.split_once(':').map_or("", |(_, lists)| lists))
            .expect("a position's FEN reads")
    }

    /// A board that cannot tell a king from a man may report either.
    fn shows(shown: Option<u8>, actual: Option<u8>) -> bool {
        shown.map(|s| s.to_ascii_lowercase()) == actual.map(|a| a.to_ascii_lowercase())
    }

    fn owner(letter: u8) -> Option<Player> {
        match letter {
            b'w' | b'W' => Some(Player::First),
            b'b' | b'B' => Some(Player::Second),
            _ => None,
        }
    }

    fn plies(&self, _shown: &Placement) -> Vec<(Ply<draughts::Square>, Self)> {
        legal_plies(self, |pos, mv| Ply::Move {
            player: Game::to_move(pos),
            from: Some(mv.from()),
            to: mv.to(),
            promotion: None,
            captures: mv.is_capture().then(|| mv.captured_set()),
            reveal: None,
        })
    }
}

/// Reads PDN piece lists without the side to move: `W31-50:B1-20`, kings as `K12`, ranges
/// `31-50`, either colour first, either list empty (`W:B1-20`).
fn read_lists(text: &str) -> Result<Placement, String> {
    let mut cells = vec![None; 50];
    let mut seen = [false; 2];
    for section in text.split(':') {
        let (colour, items) = section.split_at_checked(1).ok_or_else(|| {
            format!(
                "an empty list in the placement {}",
                crate::quote::quote(text)
            )
        })?;
        let (man, which) = match colour {
            "W" => (b'w', 0),
            "B" => (b'b', 1),
            _ => {
                return Err(format!(
                    "a placement's lists start with W or B, found {}",
                    crate::quote::quote(section)
                ));
            }
        };
        if std::mem::replace(&mut seen[which], true) {
            return Err(format!("the placement has two {colour} lists"));
        }
        for item in items.split(',').filter(|i| !i.is_empty()) {
            let (king, numbers) = match item.strip_prefix('K') {
                Some(rest) => (true, rest),
                None => (false, item),
            };
            let square = |n: &str| {
                n.parse::<usize>()
                    .ok()
                    .filter(|n| (1..=50).contains(n))
                    .ok_or_else(|| {
                        format!(
                            "{} in the placement is not a square 1-50",
                            crate::quote::quote(item)
                        )
                    })
            };
            let (first, last) = match numbers.split_once('-') {
                Some((a, b)) => (square(a)?, square(b)?),
                None => (square(numbers)?, square(numbers)?),
            };
            if first > last {
                return Err(format!(
                    "the range {} in the placement runs backwards",
                    crate::quote::quote(item)
                ));
            }
            for n in first..=last {
                if cells[n - 1].is_some() {
                    return Err(format!("square {n} is listed twice in the placement"));
                }
                cells[n - 1] = Some(if king { man.to_ascii_uppercase() } else { man });
            }
        }
    }
    if !seen[0] && !seen[1] {
        return Err("the placement has neither a W nor a B list".into());
    }
    Ok(Placement { cells })
}

/// Writes a placement as the `board` event does, for a game whose squares run in rows of
/// `width` (`None`: draughts lists).
pub fn write_placement(placement: &Placement, width: Option<usize>) -> String {
    let Some(width) = width else {
        let list = |man: u8| {
            let names: Vec<String> = placement
                .cells
                .iter()
                .enumerate()
                .filter_map(|(i, c)| match c {
                    Some(l) if *l == man => Some(format!("{}", i + 1)),
                    Some(l) if *l == man.to_ascii_uppercase() => Some(format!("K{}", i + 1)),
                    _ => None,
                })
                .collect();
            names.join(",")
        };
        return format!("W{}:B{}", list(b'w'), list(b'b'));
    };
    let rows: Vec<String> = placement
        .cells
        .chunks(width)
        .map(|row| {
            let mut out = String::new();
            let mut run = 0;
            for cell in row {
                match cell {
                    None => run += 1,
                    Some(l) => {
                        if run > 0 {
                            out.push_str(&run.to_string());
                            run = 0;
                        }
                        out.push(char::from(*l));
                    }
                }
            }
            if run > 0 {
                out.push_str(&run.to_string());
            }
            out
        })
        .collect();
    rows.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_positions_read_as_their_fens_board_field() {
        let chess = chess_gjq::Position::startpos();
        let p = chess.placement();
        assert_eq!(
            write_placement(&p, Some(8)),
            "xxxxkxxx/xxxxxxxx/8/8/8/8/XXXXXXXX/XXXXKXXX"
        );
        let xq = xiangqi::Position::startpos().placement();
        assert_eq!(
            write_placement(&xq, Some(9)),
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"
        );
        let d = draughts::Position::startpos().placement();
        assert_eq!(
            write_placement(&d, None),
            "W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:\
             B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"
        );
        assert_eq!(read_lists("W31-50:B1-20").unwrap(), d);
        let r = renju::Board::startpos().placement();
        assert_eq!(r.cells().iter().flatten().count(), 0);
    }

    #[test]
    fn cells_name_their_squares() {
        assert_eq!(chess_gjq::Position::square_of(0).to_string(), "a8");
        assert_eq!(chess_gjq::Position::square_of(63).to_string(), "h1");
        assert_eq!(xiangqi::Position::square_of(0).to_string(), "a9");
        assert_eq!(xiangqi::Position::square_of(89).to_string(), "i0");
        assert_eq!(renju::Board::square_of(0).to_string(), "a15");
        assert_eq!(renju::Board::square_of(224).to_string(), "o1");
        assert_eq!(draughts::Position::square_of(49).to_string(), "50");
    }

    #[test]
    fn unreadable_placements_say_why() {
        let err = |t| chess_gjq::Position::read_placement(t).unwrap_err();
        assert!(
            err("8/8/8").contains("3 rows, expected 8"),
            "{}",
            err("8/8/8")
        );
        let e = err("xxxxkxxx/xxxxxxxx/8/8/8/8/XXXXXXXX/XXXXKXXZ");
        assert!(e.contains("unknown letter \"Z\" in row 8"), "{e}");
        let e = err("xxxxkxxx/xxxxxxxx/9/8/8/8/XXXXXXXX/XXXXKXXX");
        assert!(e.contains("row 3"), "{e}");
        let e = err("xxxxkxxx/xxxxxxxx/7/8/8/8/XXXXXXXX/XXXXKXXX");
        assert!(e.contains("row 3 of the placement has 7 squares"), "{e}");
        let e = read_lists("W31-50:B1-20,20").unwrap_err();
        assert!(e.contains("square 20 is listed twice"), "{e}");
        let e = read_lists("W51").unwrap_err();
        assert!(e.contains("not a square 1-50"), "{e}");
        assert!(renju::Board::read_placement("15/15").is_err());
    }

    #[test]
    fn colour_only_boards_and_kings() {
        assert!(chess_gjq::Position::shows(Some(b'X'), Some(b'Q')));
        assert!(!chess_gjq::Position::shows(Some(b'X'), Some(b'q')));
        assert!(!chess_gjq::Position::shows(Some(b'N'), Some(b'X')));
        assert!(draughts::Position::shows(Some(b'w'), Some(b'W')));
        assert!(!draughts::Position::shows(Some(b'w'), Some(b'b')));
    }

    #[test]
    fn kings_in_the_centre_signal_a_result() {
        let p = chess_gjq::Position::read_placement("8/8/8/3kK3/8/8/8/8").unwrap();
        assert!(chess_gjq::Position::result_signal(&p));
        let p = chess_gjq::Position::read_placement("8/8/8/3k4/8/8/8/4K3").unwrap();
        assert!(!chess_gjq::Position::result_signal(&p));
    }
}
