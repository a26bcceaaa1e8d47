//! What each of the waitlist's emails says. Every email is plain text and carries the
//! link to manage the entry (see, download, erase); subscription mail (an invitation)
//! also the link that unsubscribes at once, the one its `List-Unsubscribe` header names.

use lathe_core::retention::{CONFIRM_LINK_HOURS, PENDING_DAYS};

#[cfg(doc)]
use crate::domain::Kind;
use crate::domain::Letter;

/// Where the links of an email lead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Links {
    /// The page that confirms (for [`Kind::Confirm`]).
    pub confirm: Option<String>,
    /// The page that shows, downloads and erases the entry.
    pub manage: String,
    /// The one-click unsubscribe (for [`Kind::Invitation`]).
    pub unsubscribe: Option<String>,
}

/// What an email says, by kind.
#[derive(Clone, Copy, Debug)]
pub enum Says<'a> {
    /// The link that confirms the address ([`Kind::Confirm`]).
    Confirm,
    /// It is on the list already ([`Kind::Already`]).
    Already,
    /// The owner's letter of a wave, to `name` ([`Kind::Invitation`]).
    Invitation {
        /// The wave's letter.
        letter: &'a Letter,
        /// The recipient's name, for `{name}`.
        name: &'a str,
    },
}

/// What an email says (the periods are the core's, which the pages state and the server
/// enforces), from `product` (the sender's name), with its `links`.
pub fn letter(says: Says<'_>, product: &str, links: &Links) -> Letter {
    let manage = format!(
        "To see what we keep about you, download it, or erase it, open:\n{}\n",
        links.manage
    );
    match says {
        Says::Invitation { letter, name } => Letter {
            subject: letter.subject.replace("{name}", name),
            body: format!(
                "{}\n\
                 You get this email because you joined the {product} waitlist. To unsubscribe \
                 (we then erase your entry and write to you no more), open:\n{}\n\n{manage}",
                letter.body.replace("{name}", name),
                links.unsubscribe.as_deref().unwrap_or_default()
            ),
        },
        Says::Confirm => Letter {
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
        Says::Already => Letter {
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
            unsubscribe: Some(
                "https://lathe.example.com/api/waitlist/unsubscribe?token=v1.u.z".into(),
            ),
        }
    }

    #[test]
    fn every_letter_carries_the_manage_link_and_a_confirmation_its_own() {
        let confirm = letter(Says::Confirm, "Lathe", &links());
        assert_eq!(confirm.subject, "Confirm your place on the Lathe waitlist");
        assert!(
            confirm
                .body
                .contains("\nhttps://lathe.example.com/confirm#v1.c.x\n")
        );
        assert!(confirm.body.contains("48 hours"));
        assert!(confirm.body.contains("7 days"));
        let already = letter(Says::Already, "Lathe", &links());
        assert_eq!(already.subject, "You are already on the Lathe waitlist");
        assert!(!already.body.contains("/confirm"));
        for body in [confirm.body, already.body] {
            assert!(body.contains("\nhttps://lathe.example.com/manage#v1.m.y\n"));
            assert!(!body.contains("unsubscribe"), "transactional: {body}");
        }
    }

    #[test]
    fn an_invitation_is_the_owners_letter_to_each_name_with_its_two_links() {
        let owner = Letter::from_owner(
            "Your invitation to Lathe, {name}\r\n\r\nDear {name},\n\nYou are in.\n",
        )
        .unwrap();
        assert_eq!(owner.subject, "Your invitation to Lathe, {name}");
        let sent = letter(
            Says::Invitation {
                letter: &owner,
                name: "Ada Lovelace",
            },
            "Lathe",
            &links(),
        );
        assert_eq!(sent.subject, "Your invitation to Lathe, Ada Lovelace");
        assert_eq!(
            sent.body,
            "Dear Ada Lovelace,\n\nYou are in.\n\nYou get this email because you joined the \
             Lathe waitlist. To unsubscribe (we then erase your entry and write to you no more), \
             open:\nhttps://lathe.example.com/api/waitlist/unsubscribe?token=v1.u.z\n\n\
             To see what we keep about you, download it, or erase it, open:\n\
             https://lathe.example.com/manage#v1.m.y\n"
        );
    }

    #[test]
    fn an_owners_letter_needs_a_subject_and_a_text() {
        use crate::domain::email::LetterError;
        for (text, refused) in [
            ("", LetterError::Incomplete("no subject")),
            ("\nBody", LetterError::Incomplete("no subject")),
            (
                "Subject only\n\n",
                LetterError::Incomplete("no text beneath its subject"),
            ),
            (
                &format!("{}\nBody", "s".repeat(201)),
                LetterError::LongSubject,
            ),
            ("Sub\u{202e}ject\nBody", LetterError::ControlInSubject),
        ] {
            assert_eq!(Letter::from_owner(text), Err(refused), "{text:?}");
        }
    }
}
