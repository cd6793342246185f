//! `referee perft --variant V [--fen F] --depth N`: prints the leaf count (clap refuses an
//! unknown variant, listing the games, with exit code 2).

use std::process::ExitCode;

use crate::games::{self, Variant};

pub fn run(variant: Variant, fen: Option<&str>, depth: u32) -> ExitCode {
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
