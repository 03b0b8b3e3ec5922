// Fakes of the anime and art-design upstreams.
import { fixture, json, type Answers } from './fixture.js';

export const ANIME_ART: Record<string, Answers> = {
  dattebayo: {
    'GET /characters': () => ({ json: { characters: [fixture('dattebayo', 'character-1.json')], currentPage: 1, pageSize: 20, total: 1 } }),
    'GET /clans': json('dattebayo', 'clans-page.json'),
    'GET /characters/:id': json('dattebayo', 'character-1.json'),
  },
  dragonball: {
    'GET /characters': json('dragonball', 'characters-page.json'),
    'GET /planets': json('dragonball', 'planets-destroyed.json'),
    'GET /characters/:id': json('dragonball', 'character-3.json'),
  },
  'nekos-best': {
    'GET /endpoints': json('nekos-best', 'endpoints.json'),
    'GET /search': json('nekos-best', 'search.json'),
    'GET /:category': json('nekos-best', 'neko.json'),
  },
  nekosia: {
    'GET /images/:category': json('nekosia', 'catgirl.json'),
    'GET /tags': json('nekosia', 'tags.json'),
    'GET /getImageById/:id': json('nekosia', 'catgirl.json'),
  },
  pokeapi: {
    'GET /pokemon/pikachu/': json('pokeapi', 'pokemon-pikachu.json'),
    'GET /:resource/': json('pokeapi', 'pokemon-list.json'),
  },
  tracemoe: { 'GET /search': json('tracemoe', 'search.json'), 'GET /me': json('tracemoe', 'me.json') },
  'waifu-im': {
    'GET /images': json('waifu-im', 'images.json'),
    'GET /tags': json('waifu-im', 'tags.json'),
    'GET /images/:id': json('waifu-im', 'image-6758.json'),
  },
  artic: {
    'GET /artworks/search': json('artic', 'search.json'),
    'GET /artworks/:id': json('artic', 'artwork.json'),
    'GET /artworks': json('artic', 'list.json'),
  },
  met: {
    'GET /search': json('met', 'search.json'),
    'GET /objects/45734': json('met', 'object-45734.json'),
    'GET /objects/436535': json('met', 'object-436535.json'),
    'GET /objects/:id': () => ({ status: 404, json: { message: 'ObjectID not found' } }),
  },
};
