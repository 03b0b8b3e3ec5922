// Recorded upstream answers of tests/fixtures/<upstream>/, and the shapes fakes answer with.
import fs from 'node:fs';
import type { FakeResponse, RouteHandler } from '../fake-upstream.js';

export type Answers = Record<string, RouteHandler>;

export function fixture(upstream: string, name: string): any {
  const text = fs.readFileSync(new URL(`../../fixtures/${upstream}/${name}`, import.meta.url), 'utf8');
  return name.endsWith('.json') ? JSON.parse(text) : text;
}

/** A route answering a JSON fixture. */
export const json =
  (upstream: string, name: string, extra: Partial<FakeResponse> = {}): RouteHandler =>
  () => ({ json: fixture(upstream, name), ...extra });

/** A route answering an HTML fixture. */
export const html =
  (upstream: string, name: string): RouteHandler =>
  () => ({ text: fixture(upstream, name), headers: { 'content-type': 'text/html; charset=utf-8' } });
