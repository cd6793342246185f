//! The stones on the board and whose turn it is; placement and five in a row.

use std::fmt;

use super::point::{Direction, Point};

/// The two colours. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stone {
    Black,
    White,
}

impl Stone {
    pub fn other(self) -> Stone {
        match self {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        }
    }

    /// The letter the board text uses: `x` black, `o` white.
    pub(super) fn letter(self) -> char {
        match self {
            Stone::Black => 'x',
            Stone::White => 'o',
        }
    }
}

/// Why a board text or a move list is not a position the rules reach.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadBoard {
    /// The text does not have 15 rows.
    #[error("board has {0} rows, not 15")]
    Rows(usize),
    /// A row does not have 15 points.
    #[error("row {rank} has {len} points, not 15")]
    RowLength { rank: usize, len: usize },
    /// A character other than `.`, `x`, `o`.
    #[error("'{0}' is not a point ('.'), black ('x') or white ('o')")]
    Cell(char),
    /// Black moves first and the sides alternate, so black has as many stones as white or
    /// one more.
    #[error("{black} black and {white} white stones cannot follow from alternate moves")]
    Counts { black: usize, white: usize },
    /// A move list names a point that does not exist.
    #[error("point \"{0}\" does not exist")]
    Point(String),
    /// A move list plays on a stone.
    #[error("{0} is already taken")]
    Occupied(Point),
}

/// A position: the stones and the side to move. Holding one proves the stone counts follow
/// from alternate moves, black first; it does not judge forbidden moves or fives already on
/// the board (that is the referee's history to tell).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [Option<Stone>; Point::COUNT],
    to_move: Stone,
}

impl Default for Board {
    fn default() -> Self {
        Board::new()
    }
}

impl Board {
    /// The empty board, black to move.
    pub fn new() -> Board {
        Board {
            cells: [None; Point::COUNT],
            to_move: Stone::Black,
        }
    }

    pub fn to_move(&self) -> Stone {
        self.to_move
    }

    pub fn stone(&self, point: Point) -> Option<Stone> {
        self.cells[point.index()]
    }

    /// Stones on the board.
    pub fn count(&self) -> usize {
        self.cells.iter().flatten().count()
    }

    /// True when no point is left: the game is drawn if nobody has won.
    pub fn is_full(&self) -> bool {
        self.cells.iter().all(Option::is_some)
    }

    /// Places the side to move's stone on an empty point and passes the turn.
    pub fn play(&mut self, point: Point) -> Result<(), BadBoard> {
        if self.stone(point).is_some() {
            return Err(BadBoard::Occupied(point));
        }
        self.cells[point.index()] = Some(self.to_move);
        self.to_move = self.to_move.other();
        Ok(())
    }

    /// The board with a black stone added on `point` and the turn unchanged: what the
    /// forbidden-move test looks at one stone ahead.
    pub(super) fn with_black(&self, point: Point) -> Board {
        let mut next = self.clone();
        next.cells[point.index()] = Some(Stone::Black);
        next
    }

    /// The board as it stood before the stone on `point` was placed: the point empty and that
    /// stone's colour to move (unchanged if the point is empty).
    pub fn lifted(&self, point: Point) -> Board {
        let mut before = self.clone();
        if let Some(stone) = before.cells[point.index()].take() {
            before.to_move = stone;
        }
        before
    }

    /// Sets a point regardless of turns: tests that draw shapes, and a FEN being read.
    pub(super) fn put(&mut self, point: Point, stone: Option<Stone>) {
        self.cells[point.index()] = stone;
    }

    /// Gives the turn to `stone` regardless of the counts (a FEN says whose turn it is).
    pub(super) fn set_to_move(&mut self, stone: Stone) {
        self.to_move = stone;
    }

    /// The stone that made a five, and the five's points, if the board holds one: exactly
    /// five black stones in a row, or five or more white ones.
    pub fn any_five(&self) -> Option<(Stone, Vec<Point>)> {
        Point::all().find_map(|p| Some((self.stone(p)?, self.five(p)?)))
    }

    /// The five in a row through the stone on `point`, if it makes one: exactly five for
    /// black, five or more for white (white's overline counts as five; black's is forbidden).
    pub fn five(&self, point: Point) -> Option<Vec<Point>> {
        let stone = self.stone(point)?;
        Direction::ALL
            .into_iter()
            .map(|d| self.run(point, d))
            .find(|run| match stone {
                Stone::Black => run.len() == 5,
                Stone::White => run.len() >= 5,
            })
    }

    /// The unbroken run of `point`'s colour through `point` along `direction`, in order.
    pub fn run(&self, point: Point, direction: Direction) -> Vec<Point> {
        let stone = self.stone(point);
        let same = |p: &Point| self.stone(*p) == stone;
        let mut run: Vec<Point> = (1..15)
            .map_while(|k| point.step(direction, -k).filter(same))
            .collect();
        run.reverse();
        run.push(point);
        run.extend((1..15).map_while(|k| point.step(direction, k).filter(same)));
        run
    }

    /// Reads 15 rows of `.`, `x` (black), `o` (white), rank 15 first, separated by `/` or
    /// line breaks; the side to move follows from the counts.
    pub fn from_rows(text: &str) -> Result<Board, BadBoard> {
        let rows: Vec<&str> = text.split(['/', '\n']).map(str::trim).collect();
        let rows: Vec<&str> = rows.into_iter().filter(|r| !r.is_empty()).collect();
        if rows.len() != 15 {
            return Err(BadBoard::Rows(rows.len()));
        }
        let mut board = Board::new();
        for (rank, row) in (0..15u8).rev().zip(rows) {
            board.read_row(rank, row)?;
        }
        board.to_move = board.side_from_counts()?;
        Ok(board)
    }

    fn read_row(&mut self, rank: u8, row: &str) -> Result<(), BadBoard> {
        let len = row.chars().count();
        if len != 15 {
            let rank = usize::from(rank) + 1;
            return Err(BadBoard::RowLength { rank, len });
        }
        for (file, c) in (0..15u8).zip(row.chars()) {
            let point = Point::new(file, rank).expect("file and rank are below 15");
            self.cells[point.index()] = match c {
                '.' => None,
                'x' => Some(Stone::Black),
                'o' => Some(Stone::White),
                other => return Err(BadBoard::Cell(other)),
            };
        }
        Ok(())
    }

    fn side_from_counts(&self) -> Result<Stone, BadBoard> {
        let count = |s| self.cells.iter().filter(|&&c| c == Some(s)).count();
        let (black, white) = (count(Stone::Black), count(Stone::White));
        match black.checked_sub(white) {
            Some(0) => Ok(Stone::Black),
            Some(1) => Ok(Stone::White),
            _ => Err(BadBoard::Counts { black, white }),
        }
    }

    /// Plays a list of moves such as `h8 h9 i7` from the empty board.
    pub fn from_moves(text: &str) -> Result<Board, BadBoard> {
        let mut board = Board::new();
        for name in text.split_whitespace() {
            let point = Point::parse(name).ok_or_else(|| BadBoard::Point(name.to_string()))?;
            board.play(point)?;
        }
        Ok(board)
    }

    /// The rows text [`Board::from_rows`] reads, on one line.
    pub fn rows(&self) -> String {
        let row = |rank| (0..15u8).map(move |file| self.letter(file, rank));
        let rows: Vec<String> = (0..15u8).rev().map(|r| row(r).collect()).collect();
        rows.join("/")
    }

    fn letter(&self, file: u8, rank: u8) -> char {
        Point::new(file, rank)
            .and_then(|p| self.stone(p))
            .map_or('.', Stone::letter)
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", self.rows())
    }
}

/// Rank 15 first, one row a line, as the rule books draw it.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.rows().split('/') {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> Point {
        Point::parse(name).unwrap()
    }

    #[test]
    fn black_moves_first_and_turns_alternate() {
        let mut board = Board::new();
        board.play(Point::CENTRE).unwrap();
        assert_eq!(board.to_move(), Stone::White);
        assert_eq!(
            board.play(Point::CENTRE),
            Err(BadBoard::Occupied(Point::CENTRE))
        );
        board.play(p("h9")).unwrap();
        assert_eq!(board.stone(p("h9")), Some(Stone::White));
        assert_eq!(board.to_move(), Stone::Black);
    }

    #[test]
    fn rows_round_trip() {
        let board = Board::from_moves("h8 h9 i9 j10 g7").unwrap();
        let again = Board::from_rows(&board.rows()).unwrap();
        assert_eq!(again, board);
        assert_eq!(again.to_move(), Stone::White);
        assert_eq!(board.to_string().lines().nth(5), Some(".........o....."));
    }

    #[test]
    fn bad_texts_say_why() {
        assert_eq!(Board::from_rows("..."), Err(BadBoard::Rows(1)));
        let mut rows = vec!["..............."; 15];
        rows[0] = "oo.............";
        assert_eq!(
            Board::from_rows(&rows.join("/")),
            Err(BadBoard::Counts { black: 0, white: 2 })
        );
        rows[0] = "..z............";
        assert_eq!(Board::from_rows(&rows.join("/")), Err(BadBoard::Cell('z')));
        assert_eq!(
            Board::from_moves("h8 p9"),
            Err(BadBoard::Point("p9".into()))
        );
    }

    #[test]
    fn black_five_is_exact_white_five_may_be_longer() {
        let black = Board::from_moves("a1 a15 b1 b15 c1 c15 d1 d15 e1").unwrap();
        assert_eq!(black.five(p("e1")).map(|r| r.len()), Some(5));
        let long = Board::from_moves("a1 a15 b1 b15 c1 c15 e1 d15 f1 o15 d1").unwrap();
        assert_eq!(
            long.five(p("d1")),
            None,
            "six in a row is no five for black"
        );
        let white = Board::from_moves("a15 a1 b15 b1 c15 c1 e15 e1 f15 f1 o15 d1").unwrap();
        assert_eq!(white.five(p("d1")).map(|r| r.len()), Some(6));
    }

    #[test]
    fn fives_on_the_diagonals_reach_the_corners() {
        let board = Board::from_moves("k5 a1 l4 a2 m3 a3 n2 a4 o1").unwrap();
        let five = board.five(p("o1")).unwrap();
        assert_eq!(five.first(), Some(&p("k5")));
        assert_eq!(five.last(), Some(&p("o1")));
    }
}
