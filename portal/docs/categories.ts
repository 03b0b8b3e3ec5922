// Readable names for the catalog's category ids, shared by the landing page and the reference so both say
// "Developer tools" where the catalog says `tools` (an unknown id is shown as it is).
const TITLES: Record<string, string> = {
  ai: 'AI chat',
  anime: 'Anime',
  'art-design': 'Art & design',
  books: 'Books & scripture',
  'cloud-storage': 'File & image hosting',
  downloaders: 'Media downloaders',
  finance: 'Finance',
  'gen-models': 'Generative models',
  quotes: 'Quotes',
  tools: 'Developer tools',
  tts: 'Text to speech',
  utilities: 'Utilities',
  video: 'Video',
  account: 'Your account',
};

export const categoryTitle = (id: string): string => TITLES[id] ?? id;
