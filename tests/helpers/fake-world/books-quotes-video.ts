// Fakes of the books, quotes and video upstreams.
import { fixture, json, type Answers } from './fixture.js';

const quotes = (id: string): Answers => ({ 'GET /quotes/:n': json(id, 'quotes.json') });

export const BOOKS_QUOTES_VIDEO: Record<string, Answers> = {
  gutendex: { 'GET /books': json('gutendex', 'books-search.json'), 'GET /books/:id': json('gutendex', 'book-1400.json') },
  openlibrary: {
    'GET /search.json': json('openlibrary', 'search.json'),
    'GET /search/authors.json': json('openlibrary', 'authors-search.json'),
    'GET /authors/:id': json('openlibrary', 'author.json'),
    'GET /works/:id': json('openlibrary', 'work.json'),
    'GET /books/:id': json('openlibrary', 'edition.json'),
  },
  poetrydb: {
    'GET /title': json('poetrydb', 'titles.json'),
    'GET /author': json('poetrydb', 'authors.json'),
    'GET /random': json('poetrydb', 'ozymandias.json'),
    'GET /title/:t': json('poetrydb', 'ozymandias.json'),
    'GET /author/:a': json('poetrydb', 'ozymandias.json'),
  },
  'wldeh-bible': {
    'GET /bibles.json': json('wldeh-bible', 'bibles.json'),
    'GET /:version/books/:book/chapters/:c/verses/:v': json('wldeh-bible', 'john-3-16.json'),
    'GET /:version/books/:book/chapters/:c': json('wldeh-bible', 'jude-1.json'),
  },
  'bible-api': { 'GET /data': json('bible-api', 'data.json'), 'GET /:ref': json('bible-api', 'john-3-16.json') },
  crossref: { 'GET /works': json('crossref', 'works.json') },
  gita: { 'GET /:lang/verse/:c/:v': json('gita', 'tel-2-47.json'), 'GET /:lang/verse/:serial': json('gita', 'tel-2-47.json') },
  'hp-api': {
    'GET /characters': json('hp-api', 'characters.json'),
    'GET /characters/house/:house': json('hp-api', 'house-gryffindor.json'),
    'GET /spells': json('hp-api', 'spells.json'),
    'GET /character/:id': json('hp-api', 'character.json'),
  },
  'lucifer-quotes': quotes('lucifer-quotes'),
  'southpark-quotes': quotes('southpark-quotes'),
  'strangerthings-quotes': quotes('strangerthings-quotes'),
  'office-api': {
    'GET /quote/random': () => ({ json: fixture('office-api', 'quotes.json')[0] }),
    'GET /quote/:id': () => ({ json: fixture('office-api', 'quotes.json')[0] }),
  },
  supernatural: {
    'GET /quotes/random': json('supernatural', 'quote-random.json'),
    'GET /quotes': json('supernatural', 'quotes-page.json'),
    'GET /characters': json('supernatural', 'characters-page.json'),
    'GET /episodes': json('supernatural', 'episodes-page.json'),
    'GET /episodes/:id': json('supernatural', 'episode-by-id.json'),
  },
  iceandfire: {
    'GET /books': () => ({
      json: [
        { url: 'https://www.anapioficeandfire.com/api/books/1', name: 'A Game of Thrones', isbn: '978-0553103540', mediaType: 'Hardcover' },
      ],
    }),
    'GET /characters': json('iceandfire', 'characters-page.json'),
    'GET /houses/:id': json('iceandfire', 'house-362.json'),
  },
  bobsburgers: {
    'GET /characters': json('bobsburgers', 'characters.json'),
    'GET /burgerOfTheDay/:ids': json('bobsburgers', 'burgers-1-2.json'),
  },
};
