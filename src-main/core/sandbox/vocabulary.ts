import { createHash } from 'node:crypto';

/** A tag of the lexicology listing (section 2.3). */
export interface Tag {
  id: string;
  name: string;
  category: { id: string; name: string };
}

const WORDS: Record<string, string> = {
  Mood: `Aggressive, Angry, Anxious, Bittersweet, Bright, Calm, Carefree, Cheerful, Dark, Dramatic,
    Dreamy, Eerie, Elegant, Emotional, Energetic, Epic, Euphoric, Exciting, Fearful, Festive,
    Fun, Gloomy, Happy, Heroic, Hopeful, Hypnotic, Inspiring, Intense, Intimate, Joyful, Laid Back,
    Lonely, Love, Melancholic, Mellow, Mysterious, Nostalgic, Optimistic, Passionate, Peaceful,
    Playful, Powerful, Quirky, Reflective, Relaxed, Romantic, Sad, Sensual, Serene, Sentimental,
    Sexy, Suspenseful, Tender, Tense, Triumphant, Uplifting, Warm, Whimsical, Yearning, Zen`,
  Genre: `Acid Jazz, Afrobeat, Alternative Rock, Ambient, Americana, Bebop, Bluegrass, Blues,
    Bossa Nova, Breakbeat, Chillout, Classical, Country, Cumbia, Dancehall, Deep House, Disco,
    Doom Metal, Downtempo, Drum and Bass, Dub, Dubstep, EDM, Electro, Electronic, Emo, Flamenco,
    Folk, Funk, Fusion, Garage Rock, Gospel, Grime, Grunge, Hard Rock, Hardcore, Heavy Metal,
    Hip Hop, House, Indie Folk, Indie Pop, Indie Rock, Industrial, Jazz, J-Pop, K-Pop, Latin,
    Lo-Fi, Mambo, Merengue, Minimal Techno, Neo Soul, New Wave, Opera, Orchestral, Pop, Pop Punk,
    Post Rock, Progressive Rock, Psychedelic Rock, Punk, R&B, Rap, Reggae, Reggaeton, Rock,
    Rockabilly, Salsa, Samba, Shoegaze, Singer-Songwriter, Ska, Smooth Jazz, Soul, Soundtrack,
    Synthpop, Swing, Tango, Techno, Trance, Trap, Trip Hop, World`,
  Instrument: `Accordion, Acoustic Guitar, Banjo, Bass Guitar, Brass, Cello, Choir, Clarinet,
    Drum Machine, Drums, Electric Guitar, Flute, Harmonica, Harp, Organ, Percussion, Piano,
    Saxophone, Strings, Synthesizer, Trumpet, Ukulele, Violin, Vocals`,
  Theme: `Action, Adventure, Business, Childhood, Comedy, Corporate, Documentary, Fashion, Horror,
    Nature, Road Trip, Science Fiction, Sports, Technology, Travel, Wedding`,
};

/** A stable name-based UUID (version 5 layout), so ids survive restarts and data directories. */
export function nameUuid(name: string): string {
  const hash = createHash('sha1').update(`courier-sandbox:${name}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The sandbox's tag vocabulary, sorted by category then name. */
export const VOCABULARY: readonly Tag[] = Object.entries(WORDS).flatMap(([categoryName, list]) => {
  const category = { id: nameUuid(`category:${categoryName}`), name: categoryName };
  return list
    .split(',')
    .map((word) => word.trim().replace(/\s+/g, ' '))
    .filter(Boolean)
    .sort((a, b) => a.localeCompare(b))
    .map((name) => ({ id: nameUuid(`tag:${categoryName}:${name}`), name, category }));
});
