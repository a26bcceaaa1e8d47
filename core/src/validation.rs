//! The waitlist form's fields and validation rules (spec §3 and §5).
//!
//! Failures are data: [`validate`] returns one [`FieldError`] per failing field, in the
//! order the fields appear on the form, never an `Err`.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;
#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// Shown under the name field when it is empty or only white space.
pub const NAME_REQUIRED: &str = "Full name is required";
/// Shown under the email field when it is empty.
pub const EMAIL_REQUIRED: &str = "Email address is required";
/// Shown under the email field when it does not look like an address.
pub const EMAIL_INVALID: &str = "Please enter a valid email address";
/// Shown under the message field when it is empty.
pub const MESSAGE_REQUIRED: &str = "Message is required";
/// Shown under a field that holds a control character (other than a line break or a tab
/// in the message) or an invisible format character such as a zero-width space or a
/// bidirectional override: text that looks like other text, or that breaks what the
/// owner's tools read. The email field shows [`EMAIL_INVALID`] instead.
pub const INVISIBLE_CHARACTERS: &str = "Please remove the invisible or control characters";
/// Rows of the message text area.
pub const MESSAGE_ROWS: u32 = 4;
/// The longest address, in UTF-8 bytes: SMTP's limit on a path (RFC 5321, 256 octets)
/// less its angle brackets. A longer one can never be written to.
pub const EMAIL_MAX_BYTES: usize = 254;

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub enum Field {
    /// Full name (required).
    Name,
    /// Email address (required).
    Email,
    /// Company (optional).
    Company,
    /// Role (optional).
    Role,
    /// Area of interest, one of [`Interest`].
    Interest,
    /// Message, a 4-row text area (required).
    Message,
}

impl Field {
    /// Every field, in the order the form shows them.
    pub const ALL: [Field; 6] = [
        Field::Name,
        Field::Email,
        Field::Company,
        Field::Role,
        Field::Interest,
        Field::Message,
    ];

    /// The field's row in the form's table: how it is entered and what the rules say.
    pub const fn spec(self) -> FieldSpec {
        let (control, required, marked) = match self {
            Field::Name => (Control::Text, true, true),
            Field::Email => (Control::Email, true, true),
            Field::Company | Field::Role => (Control::Text, false, false),
            Field::Interest => (Control::Choice, false, false),
            // Validated as required (spec §5), but spec §5 marks only name and email.
            Field::Message => (Control::Multiline, true, false),
        };
        FieldSpec {
            field: self,
            control,
            required,
            marked,
        }
    }

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

/// How a field is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub enum Control {
    /// One line of free text.
    Text,
    /// One line of free text holding an email address: never changed before the rules
    /// see it (so not an `<input type="email">`, which strips spaces).
    Email,
    /// Several lines of free text, [`MESSAGE_ROWS`] rows high.
    Multiline,
    /// One of a fixed list of values ([`Interest::ALL`]).
    Choice,
}

/// One row of the form's field table (spec §3 and §5). The UI adds only the words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct FieldSpec {
    /// Which field.
    pub field: Field,
    /// How it is entered.
    pub control: Control,
    /// Whether an empty value is an error on submit.
    pub required: bool,
    /// Whether its label carries an asterisk and its control the `required` attribute.
    pub marked: bool,
}

/// A field name that is not one of [`Field::ALL`]. Its message is a constant: the value
/// is not echoed (the caller has it, and formatting it would cost wasm bytes).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown field: expected one of name, email, company, role, interest, message")]
pub struct UnknownField(pub String);

/// What the visitor is writing about. Not validated beyond being one of these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
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

/// An interest value that is not one of [`Interest::ALL`] (a constant message, as
/// [`UnknownField`]'s).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown interest: expected one of general, enterprise, developer, partnership, press")]
pub struct UnknownInterest(pub String);

/// What the visitor has typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct FormValues {
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

/// Some of the form's values, to set at once; absent ones are left as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct FormUpdate {
    /// Full name.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub name: Option<String>,
    /// Email address.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub email: Option<String>,
    /// Company.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub company: Option<String>,
    /// Role.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub role: Option<String>,
    /// Area of interest.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub interest: Option<Interest>,
    /// Message.
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub message: Option<String>,
}

impl FormUpdate {
    /// Adds one field's value, as typed (the interest by its name).
    ///
    /// # Errors
    /// An interest that is not one of the five; nothing is added.
    pub fn set(&mut self, field: Field, value: String) -> Result<(), UnknownInterest> {
        let slot = match field {
            Field::Name => &mut self.name,
            Field::Email => &mut self.email,
            Field::Company => &mut self.company,
            Field::Role => &mut self.role,
            Field::Message => &mut self.message,
            Field::Interest => {
                self.interest = Some(value.parse()?);
                return Ok(());
            }
        };
        *slot = Some(value);
        Ok(())
    }
}

impl FormValues {
    /// Sets every value `update` holds.
    pub fn apply(&mut self, update: FormUpdate) {
        let FormUpdate {
            name,
            email,
            company,
            role,
            interest,
            message,
        } = update;
        for (slot, value) in [
            (&mut self.name, name),
            (&mut self.email, email),
            (&mut self.company, company),
            (&mut self.role, role),
            (&mut self.message, message),
        ] {
            if let Some(value) = value {
                *slot = value;
            }
        }
        if let Some(interest) = interest {
            self.interest = interest;
        }
    }
}

/// Why a field failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub enum ErrorCode {
    /// The field is required and empty.
    Required,
    /// The email address does not match the pattern, is longer than
    /// [`EMAIL_MAX_BYTES`], or holds a control or format character.
    InvalidEmail,
    /// The field holds a control or invisible format character ([`refused_character`]).
    InvisibleCharacters,
}

impl ErrorCode {
    /// The code's name at the boundary.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Required => "required",
            ErrorCode::InvalidEmail => "invalid-email",
            ErrorCode::InvisibleCharacters => "invisible-characters",
        }
    }
}

impl FromStr for ErrorCode {
    type Err = UnknownErrorCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "required" => Ok(ErrorCode::Required),
            "invalid-email" => Ok(ErrorCode::InvalidEmail),
            "invisible-characters" => Ok(ErrorCode::InvisibleCharacters),
            _ => Err(UnknownErrorCode),
        }
    }
}

/// An error code that is not one of [`ErrorCode`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownErrorCode;

/// One failing field, with the message to show beneath it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct FieldError {
    /// The field that failed.
    pub field: Field,
    /// Why, as a stable code.
    pub code: ErrorCode,
    /// The message to show, verbatim from the specification.
    pub message: &'static str,
}

impl FieldError {
    /// The error `code` on `field`, with its message; `None` for a pair the rules never
    /// produce (an optional field cannot be `required`, only the email can be invalid).
    /// A server that runs these rules reports its errors as such pairs.
    pub const fn new(field: Field, code: ErrorCode) -> Option<Self> {
        let message = match (field, code) {
            (Field::Name, ErrorCode::Required) => NAME_REQUIRED,
            (Field::Email, ErrorCode::Required) => EMAIL_REQUIRED,
            (Field::Email, ErrorCode::InvalidEmail) => EMAIL_INVALID,
            (Field::Message, ErrorCode::Required) => MESSAGE_REQUIRED,
            (
                Field::Name | Field::Company | Field::Role | Field::Message,
                ErrorCode::InvisibleCharacters,
            ) => INVISIBLE_CHARACTERS,
            _ => return None,
        };
        Some(Self {
            field,
            code,
            message,
        })
    }
}

/// Checks the form against spec §5, and every free-text field for characters no one
/// types ([`refused_character`]): at most one error per field, in form order.
pub fn validate(fields: &FormValues) -> Vec<FieldError> {
    let text = |field: Field, value: &str| {
        let multiline = field.spec().control == Control::Multiline;
        value
            .chars()
            .any(|c| refused_character(c, multiline))
            .then_some((field, ErrorCode::InvisibleCharacters))
    };
    let name = if fields.name.trim_matches(JS_WHITESPACE).is_empty() {
        Some((Field::Name, ErrorCode::Required))
    } else {
        text(Field::Name, &fields.name)
    };
    let email = if fields.email.is_empty() {
        Some((Field::Email, ErrorCode::Required))
    } else if is_valid_email(&fields.email)
        && fields.email.len() <= EMAIL_MAX_BYTES
        && !fields.email.chars().any(is_control_or_format)
    {
        None
    } else {
        Some((Field::Email, ErrorCode::InvalidEmail))
    };
    let message = if fields.message.is_empty() {
        Some((Field::Message, ErrorCode::Required))
    } else {
        text(Field::Message, &fields.message)
    };
    [
        name,
        email,
        text(Field::Company, &fields.company),
        text(Field::Role, &fields.role),
        message,
    ]
    .into_iter()
    .flatten()
    .filter_map(|(field, code)| FieldError::new(field, code))
    .collect()
}

/// Unicode's format characters (general category Cf, Unicode 16): invisible, they change
/// how text around them is shown, or nothing at all. Checked against the Unicode
/// Character Database by the tests.
const FORMAT_CHARACTERS: [(char, char); 21] = [
    ('\u{AD}', '\u{AD}'),
    ('\u{600}', '\u{605}'),
    ('\u{61C}', '\u{61C}'),
    ('\u{6DD}', '\u{6DD}'),
    ('\u{70F}', '\u{70F}'),
    ('\u{890}', '\u{891}'),
    ('\u{8E2}', '\u{8E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// A control character (general category Cc) or a format character (Cf).
pub fn is_control_or_format(c: char) -> bool {
    c.is_control()
        || FORMAT_CHARACTERS
            .iter()
            .any(|&(first, last)| (first..=last).contains(&c))
}

/// Whether free text may not hold `c`: every control and format character, except
/// - line breaks and tabs in a `multiline` field (a message is typed on several lines);
/// - the zero-width non-joiner and joiner (U+200C, U+200D), which Persian, the Indic
///   scripts and emoji sequences (👩‍💻) need to be spelled right;
/// - the tag characters (U+E0020-U+E007F), which spell subdivision flags (🏴 England).
///
/// The email field refuses every one of them ([`is_control_or_format`]).
pub fn refused_character(c: char, multiline: bool) -> bool {
    let allowed = (multiline && matches!(c, '\n' | '\r' | '\t'))
        || matches!(c, '\u{200C}' | '\u{200D}' | '\u{E0020}'..='\u{E007F}');
    !allowed && is_control_or_format(c)
}

/// The address as it is stored and compared: in Unicode's composed form (NFC), so that
/// the same address typed on two keyboards (`é` as one character or as `e` and an accent)
/// is one address. Natively only: the browser never compares addresses, and the
/// normalisation tables would double the wasm.
#[cfg(not(target_arch = "wasm32"))]
pub fn normalize_email(email: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    email.nfc().collect()
}

/// The key an address is found by: [`normalize_email`], without case, as people type
/// theirs differently from one time to the next (`Ada@Example.com`, `ada@example.com`).
#[cfg(not(target_arch = "wasm32"))]
pub fn email_key(email: &str) -> String {
    normalize_email(email).to_lowercase()
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

    fn form(name: &str, email: &str, message: &str) -> FormValues {
        FormValues {
            name: name.into(),
            email: email.into(),
            message: message.into(),
            ..FormValues::default()
        }
    }

    fn messages(fields: &FormValues) -> Vec<&'static str> {
        validate(fields).into_iter().map(|e| e.message).collect()
    }

    #[test]
    fn a_complete_form_is_valid() {
        assert!(validate(&form("Ada Lovelace", "ada@example.com", "Hello")).is_empty());
    }

    #[test]
    fn an_empty_form_fails_name_email_and_message_in_form_order() {
        assert_eq!(
            validate(&FormValues::default()),
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
    fn company_role_and_interest_have_no_rule_of_their_own() {
        let mut fields = form("A", "a@b.c", "m");
        fields.company = " ".repeat(1000);
        fields.role = String::new();
        fields.interest = Interest::Press;
        assert!(validate(&fields).is_empty());
    }

    #[test]
    fn control_and_format_characters_are_refused_in_every_text_field() {
        for bad in [
            '\u{0}', '\u{1B}', '\u{7F}', '\u{85}', '\u{200B}', '\u{202E}', '\u{2066}', '\u{AD}',
        ] {
            let mut fields = form(&format!("Ada{bad}"), "a@b.c", &format!("hi{bad}"));
            fields.company = format!("{bad}Engines");
            fields.role = bad.to_string();
            assert_eq!(
                messages(&fields),
                vec![INVISIBLE_CHARACTERS; 4],
                "{bad:?} in name, company, role and message"
            );
            assert_eq!(
                validate(&fields)
                    .iter()
                    .map(|e| (e.field, e.code))
                    .collect::<Vec<_>>(),
                [Field::Name, Field::Company, Field::Role, Field::Message]
                    .map(|f| (f, ErrorCode::InvisibleCharacters))
            );
            assert_eq!(
                messages(&form("Ada", &format!("ada{bad}@example.com"), "m")),
                vec![EMAIL_INVALID],
                "{bad:?} in the address"
            );
        }
    }

    #[test]
    fn what_people_really_type_is_kept() {
        // Line breaks and tabs in the message; joiners in Persian names and emoji; a flag.
        let fields = form(
            "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645} 👩\u{200D}💻",
            "ü@é.ß",
            "line 1\r\nline 2\n\tindented 🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
        );
        assert!(validate(&fields).is_empty());
        assert_eq!(
            messages(&form("Ada\nLovelace", "a@b.c", "m")),
            vec![INVISIBLE_CHARACTERS],
            "a name is one line"
        );
        assert_eq!(
            messages(&form("Ada", "a\u{200D}@b.c", "m")),
            vec![EMAIL_INVALID],
            "no joiner in an address"
        );
    }

    #[test]
    fn an_address_fits_in_smtp() {
        let at_limit = format!("{}@example.com", "a".repeat(EMAIL_MAX_BYTES - 12));
        assert_eq!(at_limit.len(), EMAIL_MAX_BYTES);
        assert!(validate(&form("A", &at_limit, "m")).is_empty());
        let over = format!("a{at_limit}");
        assert_eq!(messages(&form("A", &over, "m")), vec![EMAIL_INVALID]);
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_format_table_is_unicodes_category_cf() {
        use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let expected = c.general_category() == GeneralCategory::Format
                || c.general_category() == GeneralCategory::Control;
            assert_eq!(is_control_or_format(c), expected, "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn addresses_compare_in_nfc_without_case() {
        let composed = "jos\u{E9}@example.com";
        let decomposed = "jose\u{301}@example.com";
        assert_ne!(composed, decomposed);
        assert_eq!(normalize_email(decomposed), composed);
        assert_eq!(email_key("JOSE\u{301}@Example.com"), email_key(composed));
        assert_eq!(email_key("Ada@Example.COM"), "ada@example.com");
    }

    #[test]
    fn the_field_table_says_what_the_rules_do() {
        let failing: Vec<Field> = validate(&FormValues::default())
            .iter()
            .map(|e| e.field)
            .collect();
        let required: Vec<Field> = Field::ALL
            .into_iter()
            .filter(|f| f.spec().required)
            .collect();
        assert_eq!(
            failing, required,
            "an empty form fails exactly the required fields"
        );
        let marked: Vec<Field> = Field::ALL.into_iter().filter(|f| f.spec().marked).collect();
        assert_eq!(
            marked,
            [Field::Name, Field::Email],
            "spec §5 marks these two"
        );
        for f in Field::ALL {
            assert_eq!(f.spec().field, f);
        }
        assert_eq!(Field::Email.spec().control, Control::Email);
        assert_eq!(Field::Message.spec().control, Control::Multiline);
        assert_eq!(Field::Interest.spec().control, Control::Choice);
    }

    #[test]
    fn an_update_sets_what_it_holds_and_nothing_else() {
        let mut values = form("Ada", "ada@example.com", "Hi");
        values.apply(FormUpdate {
            email: Some("eve@example.com".into()),
            interest: Some(Interest::Press),
            ..FormUpdate::default()
        });
        assert_eq!(values.name, "Ada");
        assert_eq!(values.email, "eve@example.com");
        assert_eq!(values.message, "Hi");
        assert_eq!(values.interest, Interest::Press);
    }

    #[test]
    fn an_update_has_one_slot_per_field_under_its_boundary_name() {
        let mut update = FormUpdate::default();
        for f in Field::ALL {
            let value = if f == Field::Interest {
                "press"
            } else {
                f.as_str()
            };
            update.set(f, value.to_owned()).unwrap();
        }
        // The same object as serde reads it: every field's name is a key it knows.
        let json: serde_json::Map<String, serde_json::Value> = Field::ALL
            .into_iter()
            .map(|f| {
                let value = if f == Field::Interest {
                    "press"
                } else {
                    f.as_str()
                };
                (f.as_str().to_owned(), value.into())
            })
            .collect();
        let read: FormUpdate = serde_json::from_value(json.into()).unwrap();
        assert_eq!(read, update);
        assert!(update.set(Field::Interest, "sales".into()).is_err());
        assert_eq!(update.interest, Some(Interest::Press));
    }

    #[test]
    fn boundary_names_are_serde_names() {
        for f in Field::ALL {
            assert_eq!(serde_json::to_value(f).unwrap(), f.as_str());
        }
        for i in Interest::ALL {
            assert_eq!(serde_json::to_value(i).unwrap(), i.as_str());
        }
        for c in [ErrorCode::Required, ErrorCode::InvalidEmail] {
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
        let update: FormUpdate =
            serde_json::from_str(r#"{"name":"Ada","interest":"press"}"#).unwrap();
        assert_eq!(update.interest, Some(Interest::Press));
        assert!(serde_json::from_str::<FormUpdate>(r#"{"phone":"1"}"#).is_err());
        assert!(serde_json::from_str::<FormUpdate>(r#"{"interest":"sales"}"#).is_err());
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
