//! `referee perft --variant V [--fen F] --depth N`: prints the leaf count.

use std::process::ExitCode;

use crate::games::{self, Variant};

pub fn run(variant: &str, fen: Option<&str>, depth: u32) -> ExitCode {
    let Some(variant) = Variant::parse(variant) else {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        eprintln!(
            "referee: unknown variant \"{variant}\" (expected one of {})",
            names.join(", ")
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
