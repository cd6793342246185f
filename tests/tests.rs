//! The integration tests, one binary (faster to link on a small machine), one module per area.

mod access;
mod audit;
mod audit_grpc;
mod chess_differential;
mod cli;
mod common;
mod console;
mod crash;
mod draughts_pdn;
mod faults;
mod fixtures;
mod hall;
mod health;
mod limits;
mod perft;
mod properties;
mod service;
mod shutdown;
mod store_cli;
mod store_damage;
mod tls;
mod watchers;
mod xiangqi_ccpd;
