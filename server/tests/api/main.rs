//! The server's tests that need no process of their own: the application in-process
//! ([`helpers::TestApp`], on port 0), talked to over raw sockets, or called without one.
//! One binary, so that its dependencies are linked once.

mod counts;
mod faults;
mod files;
mod group_commit;
mod helpers;
mod invitations;
mod links;
mod mail;
mod owner;
mod proofs;
mod referrals;
mod round_trips;
mod routes;
mod sign_ups;
mod unsubscribe;
mod webhooks;
