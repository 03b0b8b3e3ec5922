// The incidents as an Atom feed (the `feed` package writes the XML): one entry per incident of the last 90
// days, updated at its last change, so a feed reader sees an incident open, change and close.
import { Feed } from 'feed';
import { html } from '../../engine/html.js';
import type { StatusDocument } from '../../features/health/status.js';
import { STATE_WORDS } from './view.js';

const MAX_ENTRIES = 50;

export function incidentsFeed(doc: StatusDocument, o: { serviceName: string; publicUrl: string }): string {
  const page = `${o.publicUrl}/status`;
  const updated = doc.incidents.reduce((t, i) => (i.updates.at(-1)!.at > t ? i.updates.at(-1)!.at : t), '1970-01-01T00:00:00.000Z');
  const feed = new Feed({
    id: `${page}/feed.atom`,
    title: `${o.serviceName} status: incidents`,
    description: `Incidents of the ${o.serviceName} endpoints, opened and closed as their state changes.`,
    link: page,
    updated: new Date(doc.incidents.length ? updated : doc.generatedAt),
    generator: false,
    // Atom wants an author for the feed or for every entry.
    author: { name: o.serviceName, link: o.publicUrl },
    feedLinks: { atom: `${page}/feed.atom` },
  });
  for (const i of doc.incidents.slice(0, MAX_ENTRIES)) {
    const last = i.updates.at(-1)!;
    feed.addItem({
      id: `${page}#incident-${i.id}`,
      link: `${page}#incident-${i.id}`,
      title: `${i.endpoint}: ${i.closedAt ? 'resolved' : STATE_WORDS[i.state].toLowerCase()}`,
      date: new Date(last.at),
      published: new Date(i.openedAt),
      description: last.note,
      content:
        html`<ol>${i.updates.map((u) => html`<li>${u.at.slice(0, 16).replace('T', ' ')} UTC: ${STATE_WORDS[u.state]}. ${u.note}</li>`)}</ol>`
          .value,
    });
  }
  return feed.atom1();
}
