// The GDPR Compliance Policy and the Terms of Service. A paragraph may hold the tokens
// {email} (the contact address, as a link), {gdpr} and {terms} (links to those pages).

import { constants } from "../core";
import { company, product } from "./company";
import { legalTitles } from "./site";

// The periods our server enforces (the core's constants, one each).
const { confirmLinkHours, pendingDays, inactiveYears, mailsPerDay } = constants.retention;

export type Block = string | { readonly list: readonly string[] };

export interface LegalSection {
  readonly heading: string;
  readonly blocks: readonly Block[];
}

export interface LegalDocument {
  readonly heading: string;
  readonly lastUpdated: { readonly iso: string; readonly text: string };
  readonly intro: string;
  readonly sections: readonly LegalSection[];
}

const lastUpdated = { iso: "2025-10-09", text: "9 October 2025" } as const;

const companies = `${company.parent} and its subsidiary ${company.subsidiary}, both registered in ${company.jurisdiction}`;

export const gdpr: LegalDocument = {
  heading: legalTitles.gdpr,
  lastUpdated,
  intro: `This policy explains how ${companies} ("we", "us") collect, use and protect personal data when you use this website and join the ${product.name} waitlist, and the rights you have under the UK General Data Protection Regulation and the Data Protection Act 2018.`,
  sections: [
    {
      heading: "Data we collect",
      blocks: [
        "When you use our contact and waitlist form, or otherwise get in touch, we may collect:",
        {
          list: [
            "your name",
            "your email address",
            "your company and role, if you give them",
            "the message you send us",
            "your IP address and browser information, such as browser type, version and language",
          ],
        },
      ],
    },
    {
      heading: "Legal basis for processing",
      blocks: [
        "We process personal data only where the law allows it:",
        {
          list: [
            "Consent: when you join the waitlist or ask to hear from us. You can withdraw consent at any time.",
            "Legitimate interest: to answer your enquiries, run and secure this website, and understand how it is used, where those interests are not overridden by yours.",
            "Legal obligations: where we must keep or disclose information by law.",
          ],
        },
      ],
    },
    {
      heading: "How we use your data",
      blocks: [
        {
          list: [
            "to manage the waitlist and send your early-access invitation",
            "to reply to your messages",
            "to send beta updates you have asked for",
            "to keep this website secure and working well",
          ],
        },
        "We do not sell your personal data or use it for automated decision-making.",
        "Once you have confirmed your address, our waitlist server may pass your name, email address and area of interest, in a signed message, to another system of ours that helps us manage invitations; it tells that system when you are invited. If your entry is erased, that system is told only that an entry was erased, and anything about you not yet passed on is deleted with it.",
      ],
    },
    {
      heading: "Data retention",
      blocks: [
        "We keep personal data only as long as we need it:",
        {
          list: [
            `Contact form data: ${String(inactiveYears)} years after your last interaction with us.`,
            "Email communications: 2 years after the last email between us.",
            "Analytics data: 1 year.",
          ],
        },
        "After these periods we delete the data or make it anonymous.",
        `When you join the waitlist we email you a link to confirm your address; it works for ${String(confirmLinkHours)} hours, and confirms nothing until you press the button on the page it opens. We email only confirmed addresses about the beta. An address not confirmed within ${String(pendingDays)} days is deleted with everything sent with it. Your last interaction is when you signed up, confirmed, or we last emailed you: our server deletes each entry ${String(inactiveYears)} years after it, automatically, every day.`,
        `If the waitlist form is sent again with an email address already on the waitlist, the entry stays as it was first sent: we keep only the fact that the address was given again, and when. Nothing in the form's answer tells anyone whether an address was already there; instead we email the address itself (a new confirmation link, or word that it is on the list already), and never more than ${String(mailsPerDay)} emails to one address in a day.`,
        "Every email we send about the waitlist has a link to a page where you can see what we keep about you, download it as a file (JSON), and erase it. Every invitation also has a link to unsubscribe in one click (your mail program may show it as an Unsubscribe button): it erases your entry at once, so that we send nothing more to the address and never invite it. When an entry is erased, by you, by unsubscribing, by us or by the periods above, we record only that an entry was erased, when, and by which of these: nothing about you, not even the address, so that if you join again later you are a new entry.",
        "Once you have confirmed your address you have a place in the waitlist's line, and a link of your own to share: each friend who joins through it and confirms their address moves you up. Your link carries a random code that says nothing about you. The pages our emails link you to show your place, how many friends joined through your link and how many confirmed: never who. So that an address moves someone up only once, ever, we keep a keyed fingerprint of each address that did (never the address itself), also after its entry is erased.",
        "Our server's logs record, for each request, when it came, the page or address asked for, the answer's status and size, how long it took, and the IP address it came from: never what you type into the form. We keep these logs for 30 days at most. To stop floods of sign-ups, our waitlist server may also keep, for a day at most, a keyed fingerprint of the IP address a sign-up came from: never the address itself.",
      ],
    },
    {
      heading: "Your rights",
      blocks: [
        "You have the right to:",
        {
          list: [
            "Access: ask for a copy of the personal data we hold about you.",
            "Rectification: have inaccurate or incomplete data corrected.",
            "Erasure: ask us to delete your data.",
            "Portability: receive your data in a structured, machine-readable format.",
            "Object: object to processing based on legitimate interest, and to direct marketing at any time.",
          ],
        },
        "You may also complain to the Information Commissioner's Office (ico.org.uk), though we would welcome the chance to resolve your concern first.",
      ],
    },
    {
      heading: "How to contact us",
      blocks: [
        "To exercise any of your rights, email us at {email} with the subject line 'GDPR Request'. We reply within one month. We may ask you to confirm your identity before acting on a request.",
      ],
    },
    {
      heading: "Security",
      blocks: [
        "We protect personal data with appropriate technical and organisational measures, including encryption in transit, access controls and regular reviews. No method of transmission or storage is completely secure, but we work to keep your data safe and will tell you and the regulator of any breach as the law requires.",
      ],
    },
    {
      heading: "Cookies",
      blocks: [
        "This website sets no cookies and loads nothing from other websites. It keeps these things in your browser, and sends only the fourth to us:",
        {
          list: [
            "your choice of light or dark theme, in local storage under the key 'theme', once you use the theme switch; it stays until you clear it",
            "while you fill in the waitlist form, a draft of what you have typed, in this tab's session storage, so that reloading the page loses nothing; it is deleted when you submit the form or close the tab",
            "a copy of this website's typeface (about 40 KB), in local storage under the key 'font', once your browser has downloaded it, so that later pages show it at once without downloading it again; it says nothing about you",
            "if you came through a friend's share link, its code, in this tab's session storage, sent with the waitlist form so that your friend moves up; it is deleted when you close the tab",
          ],
        },
      ],
    },
    {
      heading: "Changes to this policy",
      blocks: [
        "We may update this policy from time to time. The date at the top shows when it last changed; for significant changes we will tell people on our waitlist by email.",
      ],
    },
  ],
};

export const terms: LegalDocument = {
  heading: legalTitles.terms,
  lastUpdated,
  intro: `These terms apply to ${product.name} and this website, provided by ${companies}. Please read them carefully.`,
  sections: [
    {
      heading: "Acceptance of terms",
      blocks: [
        `By using ${product.name} or this website you agree to these terms. If you do not agree, please do not use them.`,
      ],
    },
    {
      heading: "Description of service",
      blocks: [
        `${product.name} is a desktop application in which you chat with AI to build React and Next.js apps, chatbots and data tools. You can bring your own API keys, use our hosted service, or process everything locally. ${product.name} is in beta: features may change, and availability for Windows, macOS and Linux is coming soon.`,
      ],
    },
    {
      heading: "Accounts",
      blocks: [
        "Some features may need an account. You are responsible for keeping your login details safe, for what happens under your account, and for giving us accurate information.",
      ],
    },
    {
      heading: "Acceptable use",
      blocks: [
        "You agree not to:",
        {
          list: [
            "break any law or anyone else's rights",
            "build or spread malware, or anything designed to harm people or systems",
            "try to get unauthorised access to our systems or other users' data",
            "use the service to harass, deceive or exploit others",
            "break the terms of the AI providers you connect",
          ],
        },
      ],
    },
    {
      heading: "Intellectual property",
      blocks: [
        `You keep full ownership of the apps, code and content you build with ${product.name}. We claim no rights in them. ${product.name} itself, including its software, design and brand, belongs to us and our licensors.`,
      ],
    },
    {
      heading: "Privacy",
      blocks: ["How we handle personal data is set out in our {gdpr}."],
    },
    {
      heading: "Disclaimers",
      blocks: [
        `${product.name} is provided "as is" during the beta. AI output can be wrong or incomplete: review and test what you build before relying on it. We do not promise that the service will be uninterrupted or error-free.`,
      ],
    },
    {
      heading: "Limitation of liability",
      blocks: [
        "To the extent the law allows, we are not liable for indirect or consequential loss, or for loss of profits, data or business. Nothing in these terms limits liability that cannot be limited by law, such as for death or personal injury caused by negligence, or for fraud.",
      ],
    },
    {
      heading: "Termination",
      blocks: [
        "You can stop using the service at any time. We may suspend or end access if you seriously or repeatedly break these terms. What you have built remains yours.",
      ],
    },
    {
      heading: "Governing law",
      blocks: [
        `These terms are governed by the law of ${company.jurisdiction}, and its courts have jurisdiction over any dispute.`,
      ],
    },
    {
      heading: "Changes to these terms",
      blocks: [
        "We may update these terms. We will give at least 30 days' notice of material changes by email or on this website before they take effect.",
      ],
    },
    {
      heading: "Contact",
      blocks: ["Questions about these terms? Email us at {email}."],
    },
  ],
};
