//! Legal move generation. Hidden pieces sit on the board under their start square's role, so
//! they move as chess_gjq 3.1.3 says without special cases here.
//!
//! A move is legal if the mover's king is not attacked afterwards (chess_gjq 4.1.2.1, 5.2).
//! That never depends on what a hidden mover turns out to be: its own piece cannot attack its
//! own king, and it blocks lines whatever it is. So legality is decided once per position, as
//! chess engines do: the checkers give the squares a move other than the king's must land on
//! (capture the checker or block), pins give each pinned piece the line it must stay on, the
//! king may go only where no enemy attacks with the king lifted off the board, and the rare en
//! passant capture (two pieces leave one line) is made and tested. [`count_legal`] counts the
//! moves without building them, for the last ply of perft.

use super::attacks;
use super::bitboard::Bitboard;
use super::board::{Board, Occupant};
use super::castling::{self, CastlingSide};
use super::moves::Move;
use super::piece::{Color, Role};
use super::position::Position;
use super::square::Square;

/// All legal moves of the side to move; none while a reveal is pending.
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut moves = Vec::with_capacity(64);
    legal_moves_into(pos, &mut moves);
    moves
}

/// Replaces the contents of `out` with the legal moves of the side to move, in the order of
/// [`legal_moves`]: pawns, knights, bishops, rooks, queens, the king, castling.
pub fn legal_moves_into(pos: &Position, out: &mut Vec<Move>) {
    out.clear();
    generate(pos, ALL, &mut Collect(out));
}

/// The number of legal moves of the side to move, without building them.
pub fn count_legal(pos: &Position) -> u64 {
    let mut count = Count(0);
    generate(pos, ALL, &mut count);
    count.0
}

/// Whether `mv` is one of the legal moves, without listing them.
pub fn is_legal(pos: &Position, mv: Move) -> bool {
    let mut find = Find {
        wanted: |from: Square, targets: Bitboard, promote: bool| {
            from == mv.from
                && targets.contains(mv.to)
                && match mv.promotion {
                    None => !promote,
                    Some(role) => promote && Role::PROMOTIONS.contains(&role),
                }
        },
        found: false,
    };
    // Only the mover's moves can be `mv`: the others are not generated.
    generate(pos, Bitboard::from_square(mv.from), &mut find);
    find.found
}

/// Whether some legal move is one that `wanted` accepts, given each piece's legal moves as
/// [`Sink::targets`] receives them (from, targets, whether each target is four promotions).
pub fn any_legal(pos: &Position, wanted: impl FnMut(Square, Bitboard, bool) -> bool) -> bool {
    let mut find = Find {
        wanted,
        found: false,
    };
    generate(pos, ALL, &mut find);
    find.found
}

/// Every square: generate the moves of all pieces.
const ALL: Bitboard = Bitboard(u64::MAX);

/// Where generated moves go: all moves of one piece at once, as target squares.
trait Sink {
    /// Moves from `from` to each of `targets`; each is four promotions if `promote`.
    fn targets(&mut self, from: Square, targets: Bitboard, promote: bool);
    /// Whether the sink has what it wants, so that generation may stop.
    fn done(&self) -> bool;
}

struct Collect<'a>(&'a mut Vec<Move>);

impl Sink for Collect<'_> {
    fn targets(&mut self, from: Square, targets: Bitboard, promote: bool) {
        for to in targets {
            if promote {
                self.0.extend(Role::PROMOTIONS.map(|role| Move {
                    from,
                    to,
                    promotion: Some(role),
                }));
            } else {
                self.0.push(Move::new(from, to));
            }
        }
    }

    fn done(&self) -> bool {
        false
    }
}

/// Looks for a move `wanted` accepts; it answers once per piece with moves.
struct Find<F> {
    wanted: F,
    found: bool,
}

impl<F: FnMut(Square, Bitboard, bool) -> bool> Sink for Find<F> {
    fn targets(&mut self, from: Square, targets: Bitboard, promote: bool) {
        if !self.found && targets.any() {
            self.found = (self.wanted)(from, targets, promote);
        }
    }

    fn done(&self) -> bool {
        self.found
    }
}

struct Count(u64);

impl Sink for Count {
    fn targets(&mut self, _from: Square, targets: Bitboard, promote: bool) {
        let n = targets.0.count_ones();
        self.0 += u64::from(if promote { n * 4 } else { n });
    }

    fn done(&self) -> bool {
        false
    }
}

/// What the king's safety allows, worked out once per position.
struct Guard {
    king: Option<Square>,
    checkers: Bitboard,
    /// Where a move other than the king's must land: anywhere, or in single check on the
    /// checker or between it and the king; nowhere in double check.
    evasion: Bitboard,
    pinned: Bitboard,
    /// For each pin, the pinner and the squares between it and the king: the only squares the
    /// pinned piece may move to.
    pins: [Bitboard; 8],
    pin_count: usize,
}

impl Guard {
    fn new(board: &Board, us: Color) -> Guard {
        let mut guard = Guard {
            king: board.king_of(us),
            checkers: Bitboard::EMPTY,
            evasion: !Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            pins: [Bitboard::EMPTY; 8],
            pin_count: 0,
        };
        let Some(king) = guard.king else {
            return guard;
        };
        let them = us.other();
        let occupied = board.occupied();
        guard.checkers = board.attackers(king, them, occupied);
        guard.evasion = match guard.checkers.count() {
            0 => !Bitboard::EMPTY,
            1 => {
                guard.checkers
                    | guard
                        .checkers
                        .first()
                        .map_or(Bitboard::EMPTY, |c| attacks::between_unchecked(king, c))
            }
            _ => Bitboard::EMPTY,
        };
        let queens = board.by_role(Role::Queen);
        let snipers = board.by_color(them)
            & (((board.by_role(Role::Bishop) | queens) & attacks::bishop(king, Bitboard::EMPTY))
                | ((board.by_role(Role::Rook) | queens) & attacks::rook(king, Bitboard::EMPTY)));
        let ours = board.by_color(us);
        for sniper in snipers {
            let between = attacks::between_unchecked(king, sniper);
            let blockers = between & occupied;
            if blockers.count() == 1 && (blockers & ours).any() {
                guard.pinned |= blockers;
                if let Some(slot) = guard.pins.get_mut(guard.pin_count) {
                    *slot = between | Bitboard::from_square(sniper);
                    guard.pin_count += 1;
                }
            }
        }
        guard
    }

    /// The squares a piece on `from` may move to as far as checks and pins go.
    fn allowed(&self, from: Square) -> Bitboard {
        if !self.pinned.contains(from) {
            return self.evasion;
        }
        let line = self.pins[..self.pin_count]
            .iter()
            .find(|line| line.contains(from));
        self.evasion & line.copied().unwrap_or_default()
    }
}

/// Generates the legal moves of the pieces on `movers` into `sink`, pawns first and
/// castling last, until the sink is done.
fn generate<S: Sink>(pos: &Position, movers: Bitboard, sink: &mut S) {
    if pos.pending.is_some() {
        return;
    }
    let board = &pos.board;
    let us = pos.turn;
    let guard = Guard::new(board, us);
    if guard.evasion.any() {
        pawn_moves(pos, movers, &guard, sink);
        piece_moves(board, us, movers, &guard, sink);
    }
    let Some(king) = guard.king else {
        return;
    };
    if movers.contains(king) && !sink.done() {
        sink.targets(king, king_steps(board, us, king), false);
    }
    let castles = movers.contains(CastlingSide::king_from(us)) && !sink.done();
    if castles && guard.checkers.is_empty() && !pos.castling.is_empty() {
        // `obstacle` checks all of chess_gjq 4.1.4, king safety on arrival included.
        for side in CastlingSide::ALL {
            if pos.castling.has(us, side) && castling::obstacle(pos, us, side).is_none() {
                let to = Bitboard::from_square(side.king_to(us));
                sink.targets(CastlingSide::king_from(us), to, false);
            }
        }
    }
}

/// Where the king on `king` may step: squares no enemy piece attacks with the king lifted
/// off the board.
fn king_steps(board: &Board, us: Color, king: Square) -> Bitboard {
    let lifted = board.occupied() & !Bitboard::from_square(king);
    let mut safe = Bitboard::EMPTY;
    for to in attacks::king(king) & !board.by_color(us) {
        if board.attackers(to, us.other(), lifted).is_empty() {
            safe.insert(to);
        }
    }
    safe
}

/// The square one step forward for `color`, if on the board.
pub fn forward(color: Color, sq: Square) -> Option<Square> {
    let rank = match color {
        Color::White => sq.rank().checked_add(1)?,
        Color::Black => sq.rank().checked_sub(1)?,
    };
    Square::new(sq.file(), rank)
}

/// Pawn moves: per pawn, captures (en passant included) then the step and the double step.
/// A pawn on its own back rank (chess_gjq 4.1.2.6.2 (1)) only steps to its second rank;
/// every pawn on its second rank may step one or two squares. A pawn moving to the last rank
/// promotes.
fn pawn_moves<S: Sink>(pos: &Position, movers: Bitboard, guard: &Guard, sink: &mut S) {
    let us = pos.turn;
    let board = &pos.board;
    let empty = !board.occupied();
    let theirs = board.by_color(us.other());
    for from in board.pieces(us, Role::Pawn) & movers {
        if sink.done() {
            return;
        }
        let allowed = guard.allowed(from);
        let promote = from.rank() == us.relative_rank(6);
        let hits = attacks::pawn(us, from);
        let mut captures = hits & theirs & allowed;
        if let Some(ep) = pos.ep_square.filter(|&ep| hits.contains(ep)) {
            // Two pieces leave their squares: made and tested, it is rare.
            if king_attackers_after(pos, Move::new(from, ep)).is_empty() {
                captures.insert(ep);
            }
        }
        sink.targets(from, captures, promote);
        let Some(one) = forward(us, from).filter(|s| empty.contains(*s)) else {
            continue;
        };
        sink.targets(from, Bitboard::from_square(one) & allowed, promote);
        if from.rank() == us.relative_rank(1)
            && let Some(two) = forward(us, one).filter(|s| empty.contains(*s))
        {
            sink.targets(from, Bitboard::from_square(two) & allowed, false);
        }
    }
}

/// Where a non-pawn piece of `role` on `from` may go, own pieces excluded.
pub fn piece_targets(board: &Board, color: Color, role: Role, from: Square) -> Bitboard {
    attacks::of(role, color, from, board.occupied()) & !board.by_color(color)
}

fn piece_moves<S: Sink>(board: &Board, us: Color, movers: Bitboard, guard: &Guard, sink: &mut S) {
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in board.pieces(us, role) & movers {
            if sink.done() {
                return;
            }
            let targets = piece_targets(board, us, role, from) & guard.allowed(from);
            sink.targets(from, targets, false);
        }
    }
}

/// The board right after `mv` as far as king safety goes: the mover keeps the role it moved
/// as (what a hidden mover turns out to be cannot matter to its own king).
pub fn board_after(pos: &Position, mv: Move) -> Board {
    let mut board = pos.board;
    let Some(mover) = board.take(mv.from) else {
        return board;
    };
    if let Some(victim) = pos.en_passant_victim(mover, mv) {
        board.take(victim);
    }
    let castle = CastlingSide::of_king_move(mover.color, mv.from, mv.to);
    if mover.role == Some(Role::King)
        && let Some(side) = castle
        && let Some(partner) = board.take(side.corner(mover.color))
    {
        board.put(side.rook_to(mover.color), partner);
    }
    let role = mv.promotion.or(mover.role);
    board.put(mv.to, Occupant { role, ..mover });
    board
}

/// The enemy pieces attacking the mover's king after `mv`.
pub fn king_attackers_after(pos: &Position, mv: Move) -> Bitboard {
    let us = pos.turn;
    let board = board_after(pos, mv);
    match board.king_of(us) {
        Some(king) => board.attackers(king, us.other(), board.occupied()),
        None => Bitboard::EMPTY,
    }
}

#[cfg(test)]
mod tests {
    use super::super::castling::{self, CastlingSide};
    use super::super::moves::Move;
    use super::super::piece::Role;
    use super::super::position::Position;
    use super::super::square::Square;
    use super::{
        any_legal, count_legal, forward, is_legal, king_attackers_after, legal_moves, piece_targets,
    };

    /// The plain definition of legality (chess_gjq 4.1.2.1, 5.2), kept as the reference:
    /// every pseudo-legal move, in generation order, kept if the mover's king is not attacked
    /// after it.
    fn reference(pos: &Position) -> Vec<Move> {
        if pos.pending.is_some() {
            return Vec::new();
        }
        let us = pos.turn;
        let board = &pos.board;
        let mut moves = Vec::new();
        let push = |moves: &mut Vec<Move>, from: Square, to: Square| {
            if to.rank() == us.relative_rank(7) {
                moves.extend(Role::PROMOTIONS.map(|r| Move {
                    from,
                    to,
                    promotion: Some(r),
                }));
            } else {
                moves.push(Move::new(from, to));
            }
        };
        let mut capturable = board.by_color(us.other());
        if let Some(ep) = pos.ep_square {
            capturable.insert(ep);
        }
        for from in board.pieces(us, Role::Pawn) {
            for to in super::attacks::pawn(us, from) & capturable {
                push(&mut moves, from, to);
            }
            if let Some(one) = forward(us, from).filter(|s| !board.occupied().contains(*s)) {
                push(&mut moves, from, one);
                if from.rank() == us.relative_rank(1)
                    && let Some(two) = forward(us, one).filter(|s| !board.occupied().contains(*s))
                {
                    moves.push(Move::new(from, two));
                }
            }
        }
        for role in [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ] {
            for from in board.pieces(us, role) {
                moves.extend(piece_targets(board, us, role, from).map(|to| Move::new(from, to)));
            }
        }
        for side in CastlingSide::ALL {
            if castling::obstacle(pos, us, side).is_none() {
                moves.push(Move::new(CastlingSide::king_from(us), side.king_to(us)));
            }
        }
        moves.retain(|&mv| king_attackers_after(pos, mv).is_empty());
        moves
    }

    /// `is_legal` says yes exactly for the listed moves, every promotion tried on every pair
    /// of squares, and `any_legal` finds a move exactly when the list has one.
    fn check_membership(pos: &Position, moves: &[Move]) {
        assert_eq!(any_legal(pos, |_, _, _| true), !moves.is_empty());
        let promotions = [
            None,
            Some(Role::Queen),
            Some(Role::Knight),
            Some(Role::King),
        ];
        let own = pos.board.by_color(pos.turn);
        for from in (0..64)
            .filter_map(Square::from_index)
            .filter(|&s| own.contains(s))
        {
            for to in (0..64).filter_map(Square::from_index) {
                for promotion in promotions {
                    let mv = Move {
                        from,
                        to,
                        promotion,
                    };
                    assert_eq!(
                        is_legal(pos, mv),
                        moves.contains(&mv),
                        "{mv} {}",
                        pos.to_fen()
                    );
                }
            }
        }
    }

    /// A 64-bit LCG: random games that reproduce.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(self.0 >> 33).unwrap_or(0) % n.max(1)
        }
    }

    /// Along random games with hidden pieces, each turned up as a random role its colour
    /// still has (so pawns land on back ranks, rooks come out of castling as knights, en
    /// passant takes whatever stepped twice), the generator gives exactly the reference's
    /// moves in the same order, and the bulk count agrees.
    #[test]
    fn equals_the_plain_definition_along_random_hidden_games() {
        let starts = [
            super::super::position::START_FEN,
            "xxxxk2x/xxxx1xxx/8/8/8/8/XXX1XXXX/XXXXK2X w KQkq - 0 1",
            "x3k2x/8/8/8/8/8/8/X3K2X w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ];
        let mut rng = Lcg(0x2545_f491_4f6c_dd1d);
        let mut compared = 0;
        for start in starts {
            for _ in 0..30 {
                let mut pos = Position::from_fen(start).unwrap();
                for _ in 0..80 {
                    let moves = legal_moves(&pos);
                    assert_eq!(moves, reference(&pos), "{}", pos.to_fen());
                    assert_eq!(count_legal(&pos), moves.len() as u64, "{}", pos.to_fen());
                    if compared % 8 == 0 {
                        check_membership(&pos, &moves);
                    }
                    compared += 1;
                    if moves.is_empty() {
                        break;
                    }
                    pos.play(moves[rng.below(moves.len())]);
                    if let Some(at) = pos.pending_reveal() {
                        let color = pos.board.occupant(at).map(|o| o.color).unwrap();
                        let roles: Vec<Role> = Role::ALL
                            .into_iter()
                            .filter(|&r| pos.revealed(color).allows(r))
                            .collect();
                        let role = roles[rng.below(roles.len())];
                        let last = at.rank() == color.relative_rank(7);
                        let promotion = (role == Role::Pawn && last).then_some(Role::Queen);
                        pos.reveal(at, role, promotion).unwrap();
                    }
                }
            }
        }
        assert!(compared > 5_000, "only {compared} positions compared");
    }
}
