//! Reading a placement against the game's position, written once over [`Sensed`]: the
//! position itself, one to three legal plies ahead (exactly one way), one piece carried where
//! the rules forbid, or nothing that explains it.

use crate::event::{Event, EventKind, GameSquare, Side};
use crate::games::Player;
use crate::games::sensor::{Placement, Ply, Revealed, Sensed};

/// The most plies one commit may derive: the board's reports of the plies in between were
/// lost (log format, "Electronic boards").
pub const MOST_PLIES: usize = 3;

/// What a placement at a commit point says of the game.
#[derive(Clone, Debug, PartialEq)]
pub enum Reading {
    /// The board shows the game's position.
    Same,
    /// The board shows the position after these plies, each as the events the log would
    /// hold (a move, and a chess_gjq reveal shown on arrival); the cells they changed; and
    /// what a board shows after each ply.
    Plies(Vec<Vec<Event>>, Vec<usize>, Vec<Placement>),
    /// One piece carried from one square to another where the rules forbid it (draughts:
    /// with the pieces it took): the move, to be judged as that `move` event would be; and
    /// the cells it changed.
    Displacement(Event, Vec<usize>),
    /// Several sequences of plies reach the placement: which was played is not known.
    Ambiguous(Vec<String>),
    /// Nothing explains the placement: the squares that differ from the game's position.
    Mismatch(Vec<String>),
}

/// What a game's board shows and how its squares are named, for the watch that is the same
/// in every game (fn pointers into the game's [`Sensed`]).
#[derive(Clone, Copy)]
pub struct BoardRules {
    pub read: fn(&str) -> Result<Placement, String>,
    pub owner: fn(u8) -> Option<Player>,
    pub shows: fn(Option<u8>, Option<u8>) -> bool,
    pub name: fn(usize) -> String,
    pub signal: fn(&Placement) -> bool,
}

impl std::fmt::Debug for BoardRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BoardRules")
    }
}

impl BoardRules {
    pub fn of<P: Sensed>() -> BoardRules
    where
        P::Square: GameSquare,
    {
        BoardRules {
            read: P::read_placement,
            owner: P::owner,
            shows: P::shows,
            name: name::<P>,
            signal: P::result_signal,
        }
    }
}

fn name<P: Sensed>(cell: usize) -> String
where
    P::Square: GameSquare,
{
    let square: crate::event::Square = P::square_of(cell).into();
    square.to_string()
}

/// How a placement is read: whether one carried piece may be read as an illegal move (not
/// while a mismatch stands); the player whose clock press this is, whose ply must be the last
/// (a press ends its presser's move: a piece of the opponent's knocked onto a square it could
/// have moved to is not the opponent's move); the time of the report; the placements reported
/// since the last commit point, which tell apart readings that end in the same placement
/// ([`Sensed::agrees_with_reports`]).
#[derive(Clone, Copy, Debug)]
pub struct Ask<'a> {
    pub displace: bool,
    pub presser: Option<Player>,
    pub ts: Option<u64>,
    pub seen: &'a [Placement],
}

/// Reads `shown` against `position`.
pub fn read<P: Sensed>(position: &P, shown: &Placement, ask: Ask<'_>) -> Reading
where
    P::Square: GameSquare,
{
    let here = position.placement();
    if here.is_shown_by::<P>(shown) {
        return Reading::Same;
    }
    type Path<S> = (Vec<Ply<S>>, Vec<Placement>);
    let mut frontier: Vec<(Path<P::Square>, P)> =
        vec![((Vec::new(), Vec::new()), position.clone())];
    for depth in 1..=MOST_PLIES {
        let mut found: Vec<Path<P::Square>> = Vec::new();
        let mut next = Vec::new();
        for ((path, steps), at) in &frontier {
            for (ply, after) in at.plies(shown) {
                let there = after.placement();
                let apart = there.differences::<P>(shown).len();
                let mut path = path.clone();
                path.push(ply);
                let last = last_mover(&path);
                let mut steps = steps.clone();
                steps.push(there);
                if apart == 0 && ask.presser.is_none_or(|p| last.is_none_or(|l| l == p)) {
                    found.push((path, steps));
                } else if apart <= (MOST_PLIES - depth) * P::MOST_CHANGED {
                    next.push(((path, steps), after));
                }
            }
        }
        if found.len() > 1 {
            // Readings that end in the same placement, told apart by what the board showed
            // on the way (a pawn seen on the last rank before the piece it became).
            let agree: Vec<usize> = (0..found.len())
                .filter(|&i| {
                    found[i]
                        .0
                        .last()
                        .is_none_or(|ply| P::agrees_with_reports(ply, ask.seen))
                })
                .collect();
            if let [one] = agree[..] {
                found = vec![found.swap_remove(one)];
            }
        }
        match found.len() {
            0 => frontier = next,
            1 => {
                let (plies, steps) = found.pop().expect("one found");
                let there = steps.last().expect("a ply").clone();
                let changed = here
                    .cells()
                    .iter()
                    .zip(there.cells())
                    .enumerate()
                    .filter(|(_, (a, b))| a != b)
                    .map(|(i, _)| i)
                    .collect();
                let plies = plies.into_iter().map(|p| events(p, ask.ts)).collect();
                return Reading::Plies(plies, changed, steps);
            }
            _ => {
                let ways = found
                    .iter()
                    .map(|(path, _)| {
                        let plies: Vec<String> = path.iter().map(ply_words).collect();
                        plies.join(", ")
                    })
                    .collect();
                return Reading::Ambiguous(ways);
            }
        }
        if frontier.is_empty() {
            break;
        }
    }
    if ask.displace
        && let Some(event) = displacement::<P>(&here, shown, ask.ts)
        && ask.presser.is_none_or(|p| Side::from(p) == event.side)
        && !unfinished(position, shown, &event)
    {
        return Reading::Displacement(event, here.differences::<P>(shown));
    }
    Reading::Mismatch(describe_differences::<P>(&here, shown))
}

/// Whether a carried piece is a legal move the board does not show finished: the same
/// squares as a legal ply whose other changes are not made yet (an en passant pawn not yet
/// taken off, a castling rook not yet moved, a promoted pawn not yet replaced). That is no
/// displacement but a placement nothing explains yet. Not in draughts, where a capture's
/// pieces left on the board make the move irregular (its book's procedure).
fn unfinished<P: Sensed>(position: &P, shown: &Placement, event: &Event) -> bool
where
    P::Square: GameSquare,
{
    let EventKind::Move { from, to, .. } = &event.kind else {
        return false;
    };
    !P::LISTS_CAPTURES
        && position.plies(shown).iter().any(|(ply, _)| match ply {
            Ply::Move {
                from: Some(f),
                to: t,
                ..
            } => {
                let (f, t): (crate::event::Square, crate::event::Square) =
                    ((*f).into(), (*t).into());
                f == *from && t == *to
            }
            _ => false,
        })
}

/// The player of the last move of a sequence: a press ends its presser's move. A reveal
/// alone completes a move made before (chess_gjq 3.1.5), whoever presses.
fn last_mover<S>(path: &[Ply<S>]) -> Option<Player> {
    path.iter().rev().find_map(|ply| match ply {
        Ply::Move { player, .. } => Some(*player),
        Ply::Reveal { .. } => None,
    })
}

/// A ply in the squares events name (`e2-e4`, `h8`, `g1-f3 (N)`).
fn ply_words<S: GameSquare>(ply: &Ply<S>) -> String {
    let name = |s: S| -> String {
        let square: crate::event::Square = s.into();
        square.to_string()
    };
    match ply {
        Ply::Move {
            from, to, reveal, ..
        } => {
            let mut words = match from {
                Some(from) => format!("{}-{}", name(*from), name(*to)),
                None => name(*to),
            };
            if let Some(r) = reveal {
                words.push_str(&format!(" ({})", revealed_words(r)));
            }
            words
        }
        Ply::Reveal {
            square, revealed, ..
        } => format!("{}={}", name(*square), revealed_words(revealed)),
    }
}

fn revealed_words(r: &Revealed) -> String {
    match r.promotion {
        Some(p) => format!("{}={p}", r.piece),
        None => r.piece.to_string(),
    }
}

/// The events of one ply.
fn events<S: GameSquare>(ply: Ply<S>, ts_ms: Option<u64>) -> Vec<Event> {
    let event = |side: Player, kind| Event {
        side: Side::from(side),
        ts_ms,
        kind,
    };
    match ply {
        Ply::Move {
            player,
            from,
            to,
            promotion,
            captures,
            reveal,
        } => {
            let moved = match from {
                Some(from) => EventKind::Move {
                    from: from.into(),
                    to: to.into(),
                    promotion,
                    captures: captures.map(|c| c.into_iter().map(Into::into).collect()),
                },
                None => EventKind::Place { to: to.into() },
            };
            let mut out = vec![event(player, moved)];
            if let Some(r) = reveal {
                out.push(event(
                    player,
                    EventKind::Reveal {
                        square: to.into(),
                        piece: r.piece,
                        promotion: r.promotion,
                    },
                ));
            }
            out
        }
        Ply::Reveal {
            player,
            square,
            revealed,
        } => vec![event(
            player,
            EventKind::Reveal {
                square: square.into(),
                piece: revealed.piece,
                promotion: revealed.promotion,
            },
        )],
    }
}

/// One piece carried from its square to another (empty, or an opponent's taken), every
/// other square as in the position; in a game whose moves list what they take (draughts),
/// opponent's pieces lifted off beside it are its captures. A renju stone placed where none
/// may go (out of turn) is one stone more.
fn displacement<P: Sensed>(here: &Placement, shown: &Placement, ts_ms: Option<u64>) -> Option<Event>
where
    P::Square: GameSquare,
{
    let differing = here.differences::<P>(shown);
    let (h, s) = (here.cells(), shown.cells());
    let owner = |cell: Option<u8>| cell.and_then(P::owner);
    // A stone placed on an empty point.
    if let [cell] = differing[..]
        && h[cell].is_none()
        && let Some(player) = owner(s[cell])
        && P::PLACED
    {
        return Some(Event {
            side: player.into(),
            ts_ms,
            kind: EventKind::Place {
                to: P::square_of(cell).into(),
            },
        });
    }
    let left: Vec<usize> = differing
        .iter()
        .copied()
        .filter(|&c| h[c].is_some() && s[c].is_none())
        .collect();
    let arrived: Vec<usize> = differing
        .iter()
        .copied()
        .filter(|&c| s[c].is_some())
        .collect();
    let [to] = arrived[..] else {
        return None;
    };
    let player = owner(s[to])?;
    let from: Vec<usize> = left
        .iter()
        .copied()
        .filter(|&c| owner(h[c]) == Some(player) && P::shows(s[to], h[c]))
        .collect();
    let [from] = from[..] else {
        return None;
    };
    if owner(h[to]).is_some_and(|o| o == player) {
        return None;
    }
    let taken: Vec<usize> = left.iter().copied().filter(|&c| c != from).collect();
    if !taken
        .iter()
        .all(|&c| owner(h[c]).is_some_and(|o| o != player))
    {
        return None;
    }
    let captures = match (taken.is_empty(), P::LISTS_CAPTURES) {
        (true, _) => None,
        (false, true) => Some(taken.iter().map(|&c| P::square_of(c).into()).collect()),
        (false, false) => return None,
    };
    Some(Event {
        side: player.into(),
        ts_ms,
        kind: EventKind::Move {
            from: P::square_of(from).into(),
            to: P::square_of(to).into(),
            promotion: None,
            captures,
        },
    })
}

/// Every square where the board and the game disagree, in words.
pub fn describe_differences<P: Sensed>(here: &Placement, shown: &Placement) -> Vec<String>
where
    P::Square: GameSquare,
{
    let (h, s) = (here.cells(), shown.cells());
    here.differences::<P>(shown)
        .into_iter()
        .map(|c| {
            let what = |cell: Option<u8>| match cell {
                Some(letter) => char::from(letter).to_string(),
                None => "empty".to_string(),
            };
            format!(
                "{} (board {}, game {})",
                name::<P>(c),
                what(s[c]),
                what(h[c])
            )
        })
        .collect()
}
