// The site's words: every headline, card, question and label a site owner would edit.
// Names, addresses and numbers are in company.ts; the form's words in form.ts.

import { company, product } from "./company";

const [windows, macos, linux] = product.platforms;

/** The promise in one line: the hero's headline, the home page's title and card. */
const headline = "Chat with AI to Build Apps";

export interface PageMeta {
  readonly title: string;
  readonly description: string;
  /** The words on the page's social card (the image a shared link shows). */
  readonly card: string;
}

export const pages = {
  home: {
    title: `${product.name}: ${headline}`,
    description: `${product.name} is a desktop app where you chat with AI to build React and Next.js apps, chatbots and data tools. Join the beta waitlist for early access.`,
    card: headline,
  },
  contact: {
    title: `Get Early Access | ${product.name}`,
    description: `Join the ${product.name} beta waitlist for early access, beta testing and exclusive updates.`,
    card: "Get Early Access",
  },
  gdpr: {
    title: `GDPR Compliance Policy | ${product.name}`,
    description: `How ${company.parent} and ${company.subsidiary} collect, use and protect your personal data, and how to exercise your rights.`,
    card: "GDPR Compliance Policy",
  },
  terms: {
    title: `Terms of Service | ${product.name}`,
    description: `The terms that apply when you use ${product.name} and this website.`,
    card: "Terms of Service",
  },
  confirm: {
    title: `Confirm your address | ${product.name}`,
    description: `Confirm your place on the ${product.name} waitlist.`,
    card: headline,
  },
  manage: {
    title: `Your waitlist entry | ${product.name}`,
    description: `See, download or erase what ${product.name} keeps about you on its waitlist.`,
    card: headline,
  },
  notFound: {
    title: `Page not found | ${product.name}`,
    description: `This page does not exist on the ${product.name} website.`,
    card: headline,
  },
} as const satisfies Record<string, PageMeta>;

/** The text alternative of a page's social card. */
export const socialCardAlt = (card: string) =>
  `The ${product.name} logo above the words “${card}”, on the site's dark background.`;

export const chrome = {
  skipLink: "Skip to main content",
  homeLink: `${product.name} home`,
  footerNav: "Footer",
  tagline: "Chat with AI to build apps, on your own desktop.",
  copyright: `© 2026 ${company.parent}. All rights reserved.`,
  themeToLight: "Switch to light theme",
  themeToDark: "Switch to dark theme",
  pauseAnimations: "Pause animations",
  playAnimations: "Play animations",
  support: "Support",
  supportNote: "Support opens with the public release.",
  registration: `${company.parent} and ${company.subsidiary} are registered in ${company.jurisdiction}.`,
} as const;

/**
 * The legal pages' titles and shared words. Their text is in legal.ts, which only those
 * pages import, so that it loads with them and not with every page.
 */
export const legalTitles = {
  gdpr: "GDPR Compliance Policy",
  terms: "Terms of Service",
  lastUpdated: "Last updated",
} as const;

export const footerLinks = [
  { label: "GDPR Compliance", to: "/gdpr" },
  { label: "Privacy Policy", to: "/gdpr" },
  { label: "Terms of Service", to: "/terms" },
  { label: "Contact", to: "/contact" },
] as const;

export const hero = {
  eyebrow: "Now in beta · Join the waitlist",
  headline,
  lead: `Describe what you want and ${product.name} builds it: React and Next.js apps, chatbots and data tools, on your own desktop. Use your own API keys, our hosted service, or run everything locally.`,
  primary: "Get Early Access",
  secondary: "Learn More",
  platforms: `${windows}, ${macos} and ${linux}: available soon`,
} as const;

/** The Lucide icon each card shows (components/FeatureIcon.tsx draws them). */
export type FeatureIconName =
  "wand-sparkles" | "key-round" | "brain-circuit" | "layers" | "code-xml" | "monitor-smartphone";

export interface Feature {
  readonly title: string;
  readonly icon: FeatureIconName;
  readonly benefits: readonly [string, string, string];
}

export const features = {
  id: "features",
  heading: "Everything you need to go from idea to app",
  intro: `${product.name} pairs a conversation with a real development environment, for developers and businesses alike.`,
  cards: [
    {
      title: "AI-Powered App Builder",
      icon: "wand-sparkles",
      benefits: [
        "Describe your idea in plain English and watch it take shape",
        "Build React and Next.js apps, chatbots and data tools",
        "Refine anything by chatting: no boilerplate, no setup",
      ],
    },
    {
      title: "Flexible AI Options",
      icon: "key-round",
      benefits: [
        "Bring your own API keys and pay your provider directly",
        "Or use our hosted service, with nothing to configure",
        "Or process everything locally: your code never leaves your machine",
      ],
    },
    {
      title: `${product.name} AI Model Connection`,
      icon: "brain-circuit",
      benefits: [
        "Work with GPT-5, Claude and Gemini",
        "Connect Azure OpenAI for enterprise deployments",
        "Reach hundreds more models through OpenRouter",
      ],
    },
    {
      title: "Full-Stack Integration",
      icon: "layers",
      benefits: [
        "Databases and auth with Neon and Supabase",
        "Deploy to Vercel in one step",
        "Payments with Stripe, product analytics with Mixpanel",
      ],
    },
    {
      title: "Premium AI Development",
      icon: "code-xml",
      benefits: [
        "Clean, production-ready code you can read and change",
        "You own everything you build, outright",
        "Made for developers and businesses alike",
      ],
    },
    {
      title: "Cross-Platform Available",
      icon: "monitor-smartphone",
      benefits: [
        `${windows}: available soon`,
        `${macos}: available soon`,
        `${linux}: available soon`,
      ],
    },
  ] satisfies Feature[],
} as const;

export const callToAction = {
  heading: `Be among the first to build with ${product.name}`,
  body: `${product.name} is in beta. Join the waitlist for early access, whether you're a solo developer or a business with a team.`,
  primary: "Get Early Access",
  secondary: "Join Community",
  secondaryNote: "Our community opens soon.",
} as const;

export const contactPage = {
  back: "Back to home",
  heading: "Get Early Access",
  lead: `${product.name} is in beta. Join the waitlist and we'll invite you as places open.`,
  contactHeading: "Contact information",
  contactLabels: {
    email: "Email",
    parent: "Parent company",
    subsidiary: "Subsidiary",
    office: "Registered office",
    number: "Registration number",
  },
  registeredIn: `Both companies are registered in ${company.jurisdiction}.`,
  expectHeading: "What to Expect",
  expect: [
    {
      title: "Early access invitation",
      body: "An email invitation to download the beta as soon as a place opens for you.",
    },
    {
      title: "Beta testing",
      body: "Try new features first and shape what we build with your feedback.",
    },
    {
      title: "Exclusive updates",
      body: "Occasional news on releases, integrations and platform availability.",
    },
  ],
  faqHeading: "Frequently asked questions",
  faqId: "faq",
} as const;

/** The header: a few links into the site, and the way in to the waitlist. */
export const siteNav = {
  label: "Main",
  menu: "Menu",
  links: [
    { label: "Features", to: `/#${features.id}` },
    { label: "FAQ", to: `/contact#${contactPage.faqId}` },
    { label: "Contact", to: "/contact" },
  ],
  cta: "Get Early Access",
} as const;

export interface FaqItem {
  readonly question: string;
  readonly answer: string;
}

export const faq: readonly FaqItem[] = [
  {
    question: `When can I start using ${product.name}?`,
    answer:
      "We invite people from the waitlist in small groups during the beta. Versions for Windows, macOS and Linux are all available soon.",
  },
  {
    question: "Do I need my own AI API keys?",
    answer: `No. You can bring your own keys for GPT-5, Claude, Gemini, Azure OpenAI or OpenRouter, use our hosted service, or run models fully locally on your machine.`,
  },
  {
    question: `What can I build with ${product.name}?`,
    answer:
      "React and Next.js web apps, chatbots and data tools, with built-in integrations for Neon, Supabase, Vercel, Stripe and Mixpanel.",
  },
  {
    question: "Who owns the apps I build?",
    answer: `You do. Everything you create with ${product.name} belongs to you, as our Terms of Service set out.`,
  },
  {
    question: "Is the beta free?",
    answer:
      "Yes. Beta access costs nothing. If you use your own API keys, your AI provider bills you directly for what you use.",
  },
];

export const notFound = {
  heading: "Page not found",
  body: "The page you were looking for doesn't exist or has moved.",
  home: "Go to the home page",
} as const;
