//! `referee perft --variant V [--fen F] --depth N`: prints the leaf count.

use std::process::ExitCode;

use crate::games::{self, Variant};

pub fn run(variant: &str, fen: Option<&str>, depth: u32) -> ExitCode {
    let Some(variant) = Variant::parse(variant) else {
        eprintln!(
            "referee: unknown variant \"{variant}\" (expected chess_gjq, xiangqi or draughts)"
        );
        return ExitCode::from(2);
    };
    match games::perft(variant, fen, depth) {
        Ok(nodes) => {
            println!("{nodes}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::from(2)
        }
    }
}
