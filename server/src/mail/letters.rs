//! What each of the waitlist's emails says. Every email is plain text and carries the
//! link to manage the entry (see, download, erase).

use lathe_core::retention::{CONFIRM_LINK_HOURS, PENDING_DAYS};

use crate::domain::Kind;

/// Where the links of an email lead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Links {
    /// The page that confirms (for [`Kind::Confirm`]).
    pub confirm: Option<String>,
    /// The page that shows, downloads and erases the entry.
    pub manage: String,
}

/// An email's subject and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Letter {
    /// Its subject line.
    pub subject: String,
    /// Its plain text.
    pub body: String,
}

/// What `kind` says (the periods are the core's, which the pages state and the server
/// enforces), from `product` (the sender's name), with its `links`.
pub fn letter(kind: Kind, product: &str, links: &Links) -> Letter {
    let manage = format!(
        "To see what we keep about you, download it, or erase it, open:\n{}\n",
        links.manage
    );
    match kind {
        Kind::Confirm => Letter {
            subject: format!("Confirm your place on the {product} waitlist"),
            body: format!(
                "Hello,\n\n\
                 Someone, we hope you, asked to join the {product} waitlist with this address. \
                 To confirm it, open this link and press \"Confirm my address\" (the link \
                 works for {CONFIRM_LINK_HOURS} hours):\n{}\n\n\
                 If it was not you, do nothing: an address that is not confirmed within \
                 {PENDING_DAYS} days is deleted.\n\n{manage}",
                links.confirm.as_deref().unwrap_or_default()
            ),
        },
        Kind::Already => Letter {
            subject: format!("You are already on the {product} waitlist"),
            body: format!(
                "Hello,\n\n\
                 Someone, we hope you, asked to join the {product} waitlist with this address. \
                 It is on the list already, confirmed, so nothing has changed: we will write \
                 when there is news.\n\n{manage}"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links() -> Links {
        Links {
            confirm: Some("https://lathe.example.com/confirm#v1.c.x".into()),
            manage: "https://lathe.example.com/manage#v1.m.y".into(),
        }
    }

    #[test]
    fn every_letter_carries_the_manage_link_and_a_confirmation_its_own() {
        let confirm = letter(Kind::Confirm, "Lathe", &links());
        assert_eq!(confirm.subject, "Confirm your place on the Lathe waitlist");
        assert!(
            confirm
                .body
                .contains("\nhttps://lathe.example.com/confirm#v1.c.x\n")
        );
        assert!(confirm.body.contains("48 hours"));
        assert!(confirm.body.contains("7 days"));
        let already = letter(Kind::Already, "Lathe", &links());
        assert_eq!(already.subject, "You are already on the Lathe waitlist");
        assert!(!already.body.contains("/confirm"));
        for body in [confirm.body, already.body] {
            assert!(body.contains("\nhttps://lathe.example.com/manage#v1.m.y\n"));
        }
    }
}
