//! Judging a repeated cycle: every move of each side named (xiangqi 27, 28), each side's
//! conduct, and the verdict (26), with the words and seqs a ruling needs.

use crate::games::xiangqi::{Color, Move, Position};

use super::classify::{Class, classify};
use super::repetition::{Cycle, History};
use super::verdict::{Conduct, Verdict, judge};

/// A judged cycle.
#[derive(Clone, Debug)]
pub struct Judgment {
    pub verdict: Verdict,
    /// Red's and black's conduct.
    pub conduct: [Conduct; 2],
    /// One line per move: seq, move, name.
    pub moves: Vec<String>,
    /// Seqs of the moves of the cycle.
    pub evidence: Vec<u64>,
    pub occurrence: u32,
    /// Whether soldiers' attacks were counted as chases because both sides attacked every
    /// move (相互长打, xiangqi 27.2).
    pub mutual_soldiers: bool,
}

/// Names every move from the first occurrence of the repeated position to now.
pub fn judge_cycle(history: &History, cycle: &Cycle) -> Judgment {
    let mut classes: [Vec<Class>; 2] = [Vec::new(), Vec::new()];
    let mut moves = Vec::new();
    let mut evidence = Vec::new();
    let stretch = history.since(cycle.start);
    for around in stretch.moves() {
        let (ply, before) = (around.ply, around.before);
        let class = classify(before, ply.mv, around.after, around.earlier);
        moves.push(format!(
            "{} {} at event {}: {class}",
            ply.mover.name(),
            move_words(before, ply.mv),
            ply.seq
        ));
        evidence.push(ply.seq);
        classes[index(ply.mover)].push(class);
    }
    let plain = [
        conduct_of(&classes[0], false),
        conduct_of(&classes[1], false),
    ];
    // 27.2: a soldier's attacks are idle, "but mutual perpetual attacks count as chases":
    // when counting them makes both sides attack every move, they count.
    let soldiers = [conduct_of(&classes[0], true), conduct_of(&classes[1], true)];
    let mutual_soldiers = soldiers != plain && soldiers.iter().all(|c| *c != Conduct::Allowed);
    let conduct = if mutual_soldiers { soldiers } else { plain };
    Judgment {
        verdict: judge(conduct[0], conduct[1]),
        conduct,
        moves,
        evidence,
        occurrence: cycle.occurrence,
        mutual_soldiers,
    }
}

fn conduct_of(classes: &[Class], soldiers_count: bool) -> Conduct {
    let refs: Vec<&Class> = classes.iter().collect();
    Conduct::of(&refs, soldiers_count)
}

fn index(color: Color) -> usize {
    match color {
        Color::Red => 0,
        Color::Black => 1,
    }
}

/// `h2e2 (炮二平五)`: ICCS for the log, Chinese for the scoresheet.
pub fn move_words(before: &Position, mv: Move) -> String {
    match before.to_chinese(mv) {
        Some(chinese) => format!("{mv} ({chinese})"),
        None => mv.to_string(),
    }
}
