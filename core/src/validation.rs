//! The waitlist form's fields and validation rules (spec §3 and §5).
//!
//! Failures are data: [`validate`] returns one [`FieldError`] per failing field, in the
//! order the fields appear on the form, never an `Err`.

use std::fmt;
use std::str::FromStr;

/// Shown under the name field when it is empty or only white space.
pub const NAME_REQUIRED: &str = "Full name is required";
/// Shown under the email field when it is empty.
pub const EMAIL_REQUIRED: &str = "Email address is required";
/// Shown under the email field when it does not look like an address.
pub const EMAIL_INVALID: &str = "Please enter a valid email address";
/// Shown under the message field when it is empty.
pub const MESSAGE_REQUIRED: &str = "Message is required";
/// Rows of the message text area.
pub const MESSAGE_ROWS: u32 = 4;

/// Every character JavaScript's `\s` matches (ECMAScript `WhiteSpace` and
/// `LineTerminator`). The email rule comes from the JS pattern
/// `^[^\s@]+@[^\s@]+\.[^\s@]+$`, so white space means exactly these, not Rust's
/// `char::is_whitespace` (which differs on U+0085, U+180E and U+FEFF).
pub const JS_WHITESPACE: [char; 25] = [
    '\u{0009}', '\u{000A}', '\u{000B}', '\u{000C}', '\u{000D}', '\u{0020}', '\u{00A0}', '\u{1680}',
    '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}',
    '\u{2008}', '\u{2009}', '\u{200A}', '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}',
    '\u{FEFF}',
];

/// The form's fields, as named on the form and at the wasm boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Full name (required).
    Name,
    /// Email address (required).
    Email,
    /// Company (optional).
    Company,
    /// Role (optional).
    Role,
    /// Message, a 4-row text area (required).
    Message,
    /// Area of interest, one of [`Interest`].
    Interest,
}

impl Field {
    /// Every field, in form order.
    pub const ALL: [Field; 6] = [
        Field::Name,
        Field::Email,
        Field::Company,
        Field::Role,
        Field::Message,
        Field::Interest,
    ];

    /// The field's name on the form.
    pub const fn as_str(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Email => "email",
            Field::Company => "company",
            Field::Role => "role",
            Field::Message => "message",
            Field::Interest => "interest",
        }
    }
}

impl FromStr for Field {
    type Err = UnknownField;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Field::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownField(s.to_owned()))
    }
}

/// A field name that is not one of [`Field::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField(pub String);

impl UnknownField {
    /// What went wrong, as a constant: the value is not echoed (the caller has it, and
    /// formatting it would cost wasm bytes).
    pub const fn message(&self) -> &'static str {
        "unknown field: expected one of name, email, company, role, message, interest"
    }
}

impl fmt::Display for UnknownField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for UnknownField {}

/// What the visitor is writing about. Not validated beyond being one of these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interest {
    /// General enquiry (the default).
    #[default]
    General,
    /// Enterprise use.
    Enterprise,
    /// Developer use.
    Developer,
    /// Partnership.
    Partnership,
    /// Press.
    Press,
}

impl Interest {
    /// Every interest, in the order the form lists them.
    pub const ALL: [Interest; 5] = [
        Interest::General,
        Interest::Enterprise,
        Interest::Developer,
        Interest::Partnership,
        Interest::Press,
    ];

    /// The value used on the form.
    pub const fn as_str(self) -> &'static str {
        match self {
            Interest::General => "general",
            Interest::Enterprise => "enterprise",
            Interest::Developer => "developer",
            Interest::Partnership => "partnership",
            Interest::Press => "press",
        }
    }
}

impl FromStr for Interest {
    type Err = UnknownInterest;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Interest::ALL
            .into_iter()
            .find(|i| i.as_str() == s)
            .ok_or_else(|| UnknownInterest(s.to_owned()))
    }
}

/// An interest value that is not one of [`Interest::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownInterest(pub String);

impl UnknownInterest {
    /// What went wrong, as a constant (see [`UnknownField::message`]).
    pub const fn message(&self) -> &'static str {
        "unknown interest: expected one of general, enterprise, developer, partnership, press"
    }
}

impl fmt::Display for UnknownInterest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for UnknownInterest {}

/// What the visitor has typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    /// Full name.
    pub name: String,
    /// Email address.
    pub email: String,
    /// Company.
    pub company: String,
    /// Role.
    pub role: String,
    /// Message.
    pub message: String,
    /// Area of interest.
    pub interest: Interest,
}

/// Why a field failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// The field is required and empty.
    Required,
    /// The email address does not match the pattern.
    InvalidEmail,
}

impl ErrorCode {
    /// The code's name at the boundary.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Required => "required",
            ErrorCode::InvalidEmail => "invalid-email",
        }
    }
}

/// One failing field, with the message to show beneath it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The field that failed.
    pub field: Field,
    /// Why, as a stable code.
    pub code: ErrorCode,
    /// The message to show, verbatim from the specification.
    pub message: &'static str,
}

/// Checks the form against spec §5. Company, role and interest are not validated.
pub fn validate(fields: &Fields) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if fields.name.trim_matches(JS_WHITESPACE).is_empty() {
        errors.push(FieldError {
            field: Field::Name,
            code: ErrorCode::Required,
            message: NAME_REQUIRED,
        });
    }
    if fields.email.is_empty() {
        errors.push(FieldError {
            field: Field::Email,
            code: ErrorCode::Required,
            message: EMAIL_REQUIRED,
        });
    } else if !is_valid_email(&fields.email) {
        errors.push(FieldError {
            field: Field::Email,
            code: ErrorCode::InvalidEmail,
            message: EMAIL_INVALID,
        });
    }
    if fields.message.is_empty() {
        errors.push(FieldError {
            field: Field::Message,
            code: ErrorCode::Required,
            message: MESSAGE_REQUIRED,
        });
    }
    errors
}

/// The rule as the JavaScript pattern it stands for, `^[^\s@]+@[^\s@]+\.[^\s@]+$`:
/// the tests hold [`is_valid_email`] to it, natively against the `regex` crate and in
/// the browser against `RegExp`.
pub const EMAIL_PATTERN: &str = r"^[^\s@]+@[^\s@]+\.[^\s@]+$";

/// Text, an at sign, text, a dot, text, with no white space (spec §5): the JavaScript
/// pattern [`EMAIL_PATTERN`], where `\s` is [`JS_WHITESPACE`].
///
/// Written out rather than run by a regex engine, which would be half of the wasm: no
/// white space anywhere, exactly one `@` with text before it, and after it a dot with
/// text on both sides.
pub fn is_valid_email(email: &str) -> bool {
    if email.contains(JS_WHITESPACE) {
        return false;
    }
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    if local.is_empty() || domain.contains('@') {
        return false;
    }
    // `[^\s@]+\.[^\s@]+`: some dot that is neither the domain's first nor its last character.
    let inner = domain
        .strip_prefix(|_: char| true)
        .and_then(|rest| rest.strip_suffix(|_: char| true));
    inner.is_some_and(|middle| middle.contains('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(name: &str, email: &str, message: &str) -> Fields {
        Fields {
            name: name.into(),
            email: email.into(),
            message: message.into(),
            ..Fields::default()
        }
    }

    fn messages(fields: &Fields) -> Vec<&'static str> {
        validate(fields).into_iter().map(|e| e.message).collect()
    }

    #[test]
    fn a_complete_form_is_valid() {
        assert!(validate(&form("Ada Lovelace", "ada@example.com", "Hello")).is_empty());
    }

    #[test]
    fn an_empty_form_fails_name_email_and_message_in_form_order() {
        assert_eq!(
            validate(&Fields::default()),
            vec![
                FieldError {
                    field: Field::Name,
                    code: ErrorCode::Required,
                    message: "Full name is required"
                },
                FieldError {
                    field: Field::Email,
                    code: ErrorCode::Required,
                    message: "Email address is required"
                },
                FieldError {
                    field: Field::Message,
                    code: ErrorCode::Required,
                    message: "Message is required"
                },
            ]
        );
    }

    #[test]
    fn name_is_trimmed_with_js_white_space() {
        for blank in [" ", "\t\n", "\u{A0}", "\u{FEFF}\u{3000}", "\u{2028}"] {
            assert_eq!(
                messages(&form(blank, "a@b.c", "m")),
                vec!["Full name is required"],
                "{blank:?}"
            );
        }
        assert!(validate(&form(" Ada ", "a@b.c", "m")).is_empty());
    }

    #[test]
    fn email_is_required_before_it_is_checked() {
        assert_eq!(
            messages(&form("A", "", "m")),
            vec!["Email address is required"]
        );
        // Non-empty but blank: required is satisfied, the pattern is not.
        assert_eq!(
            messages(&form("A", " ", "m")),
            vec!["Please enter a valid email address"]
        );
    }

    #[test]
    fn email_pattern_accepts_text_at_text_dot_text() {
        for ok in [
            "a@b.c",
            "ada@example.com",
            "first.last+tag@sub.example.co.uk",
            "a@b.c.d",
            "a@b..c",
            "ü@é.ß",
            "a@b.c@",
        ] {
            let verdict = is_valid_email(ok);
            // "a@b.c@" fails: the last part may not contain an at sign.
            assert_eq!(verdict, ok != "a@b.c@", "{ok:?}");
        }
    }

    #[test]
    fn email_pattern_rejects_what_js_rejects() {
        for bad in [
            "plain",
            "@b.c",
            "a@.c",
            "a@b.",
            "a@b",
            "a@@b.c",
            "a b@c.d",
            "a@b.c ",
            " a@b.c",
            "a@b\u{A0}.c",
            "a\u{FEFF}@b.c",
            "a@b.c\n",
            "a@b.\u{2028}c",
        ] {
            assert!(!is_valid_email(bad), "{bad:?}");
            assert_eq!(
                messages(&form("A", bad, "m")),
                vec!["Please enter a valid email address"]
            );
        }
    }

    #[test]
    fn the_dot_must_have_text_on_both_sides_after_the_at() {
        for good in ["a@b.c", "a@b..c", "a@.b.c", "a@b.c.", "a.b@c.d", "é@ü.ñ"] {
            assert!(is_valid_email(good), "{good:?}");
        }
        for bad in [
            "a@.c", "a@b.", "a@.", "a@..", "a.b@c", "a@b@c.d", "@b.c", "a@", ".",
        ] {
            assert!(!is_valid_email(bad), "{bad:?}");
        }
    }

    #[test]
    fn white_space_outside_js_set_is_text() {
        // U+0085 and U+180E are white space to Rust but not to JavaScript's \s.
        assert!(is_valid_email("a\u{85}@b.c"));
        assert!(is_valid_email("a@b\u{180E}.c"));
    }

    #[test]
    fn message_is_required_but_not_trimmed() {
        assert_eq!(
            messages(&form("A", "a@b.c", "")),
            vec!["Message is required"]
        );
        assert!(validate(&form("A", "a@b.c", " ")).is_empty());
    }

    #[test]
    fn company_role_and_interest_are_not_validated() {
        let mut fields = form("A", "a@b.c", "m");
        fields.company = " ".repeat(1000);
        fields.role = "\u{0}".into();
        fields.interest = Interest::Press;
        assert!(validate(&fields).is_empty());
    }

    #[test]
    fn field_and_interest_names_round_trip_and_unknown_ones_are_refused() {
        for f in Field::ALL {
            assert_eq!(f.as_str().parse::<Field>(), Ok(f));
        }
        for i in Interest::ALL {
            assert_eq!(i.as_str().parse::<Interest>(), Ok(i));
        }
        assert_eq!(Interest::default(), Interest::General);
        let err = "General".parse::<Interest>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown interest: expected one of general, enterprise, developer, partnership, press"
        );
        assert!("phone".parse::<Field>().is_err());
    }
}
