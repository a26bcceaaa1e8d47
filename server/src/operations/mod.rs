//! What the owner watches the server with: `/healthz` and `/readyz` ([`health`]), every
//! metric ([`metrics`]), the owner's listener with its page of figures ([`dashboard`]),
//! the frame of the pages the server makes ([`page`]),
//! the log ([`logs`]), and the job that keeps the privacy notice's retention promise
//! ([`retention`]).

pub mod dashboard;
pub mod health;
pub mod logs;
pub mod metrics;
pub mod page;
pub mod retention;
