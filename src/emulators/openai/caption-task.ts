/**
 * The emulator's stand-in for a model writing carousel captions. Postdeck's caption prompt carries
 * these lines, which the emulator reads from the last user message:
 *   Topic: <one line>            Language: <code>            Slides: <n>
 *   Slide length: <short|medium|long>   Max characters per slide: <N>   Image prompts: <yes|no>
 * The answer is deterministic: captions built from the topic in the requested language, each within
 * the maximum (CJK, kana, Hangul and fullwidth characters count 2), and self-contained image prompts.
 */
export interface CaptionTask {
  topic: string;
  language: string;
  slides: number;
  maxWidth: number;
  imagePrompts: boolean;
}

interface Phrases {
  hook: (n: number, topic: string) => string;
  tip: (i: number, topic: string) => string;
  close: (topic: string) => string;
  post: (topic: string) => string;
}

const ENGLISH: Phrases = {
  hook: (n, t) => `${n} things nobody tells you about ${t}`,
  tip: (i, t) => `Tip ${i}: ${t}`,
  close: (t) => `Follow for more on ${t}`,
  post: (t) => `Everything I wish I knew about ${t}.`,
};

const PHRASES: Record<string, Phrases> = {
  en: ENGLISH,
  vi: {
    hook: (n, t) => `${n} điều không ai nói với bạn về ${t}`,
    tip: (i, t) => `Mẹo ${i}: ${t}`,
    close: (t) => `Theo dõi để biết thêm về ${t}`,
    post: (t) => `Những điều tôi ước mình biết sớm hơn về ${t}.`,
  },
  ja: {
    hook: (n, t) => `誰も教えてくれない${t}の${n}つの秘密`,
    tip: (i, t) => `ヒント${i}：${t}`,
    close: (t) => `${t}の続きはフォローしてね`,
    post: (t) => `${t}について知っておきたかったこと。`,
  },
  ko: {
    hook: (n, t) => `아무도 알려주지 않는 ${t}의 ${n}가지 비밀`,
    tip: (i, t) => `팁 ${i}: ${t}`,
    close: (t) => `${t} 더 보려면 팔로우하세요`,
    post: (t) => `${t}에 대해 미리 알았으면 좋았을 것들.`,
  },
  zh: {
    hook: (n, t) => `关于${t}，没人告诉你的${n}件事`,
    tip: (i, t) => `提示${i}：${t}`,
    close: (t) => `关注我，了解更多${t}`,
    post: (t) => `关于${t}，我希望早点知道的事。`,
  },
  'zh-tw': {
    hook: (n, t) => `關於${t}，沒人告訴你的${n}件事`,
    tip: (i, t) => `提示${i}：${t}`,
    close: (t) => `追蹤我，了解更多${t}`,
    post: (t) => `關於${t}，我希望早點知道的事。`,
  },
  es: {
    hook: (n, t) => `${n} cosas que nadie te cuenta sobre ${t}`,
    tip: (i, t) => `Consejo ${i}: ${t}`,
    close: (t) => `Sígueme para más sobre ${t}`,
    post: (t) => `Lo que me habría gustado saber sobre ${t}.`,
  },
  fr: {
    hook: (n, t) => `${n} choses qu'on ne vous dit jamais sur ${t}`,
    tip: (i, t) => `Astuce ${i} : ${t}`,
    close: (t) => `Abonnez-vous pour en savoir plus sur ${t}`,
    post: (t) => `Ce que j'aurais aimé savoir sur ${t}.`,
  },
  de: {
    hook: (n, t) => `${n} Dinge, die dir niemand über ${t} erzählt`,
    tip: (i, t) => `Tipp ${i}: ${t}`,
    close: (t) => `Folge für mehr über ${t}`,
    post: (t) => `Was ich früher über ${t} hätte wissen wollen.`,
  },
  pt: {
    hook: (n, t) => `${n} coisas que ninguém te conta sobre ${t}`,
    tip: (i, t) => `Dica ${i}: ${t}`,
    close: (t) => `Siga para mais sobre ${t}`,
    post: (t) => `O que eu queria ter sabido sobre ${t}.`,
  },
  id: {
    hook: (n, t) => `${n} hal yang tidak pernah diberitahu tentang ${t}`,
    tip: (i, t) => `Tips ${i}: ${t}`,
    close: (t) => `Ikuti untuk info ${t} lainnya`,
    post: (t) => `Hal yang ingin kuketahui lebih awal tentang ${t}.`,
  },
};

const SCENES = [
  'a close-up on a wooden table by a window',
  'a wide shot of a calm city street at golden hour',
  'hands at work in a bright kitchen',
  'a cosy desk with a notebook and a warm lamp',
  'a person smiling outdoors in soft morning light',
  'a flat lay of everyday objects on linen',
  'a quiet park bench under autumn trees',
  'a minimalist shelf with plants and books',
  'a market stall full of colour',
  'a sunrise over rooftops',
];

/** Reads the task's lines from the prompt, or undefined when they are missing. */
export function readCaptionTask(prompt: string): CaptionTask | undefined {
  const line = (key: string) => new RegExp(`^${key}:\\s*(.*)$`, 'im').exec(prompt)?.[1]?.trim();
  const topic = line('Topic');
  const slides = Number(line('Slides'));
  if (!topic || !Number.isInteger(slides) || slides < 1) return undefined;
  return {
    topic,
    language: line('Language') ?? 'en',
    slides,
    maxWidth: Number(line('Max characters per slide')) || 150,
    imagePrompts: line('Image prompts')?.toLowerCase() === 'yes',
  };
}

/** The model's answer to the task, as the JSON the schema asks for. */
export function answerCaptionTask(task: CaptionTask, withImagePrompts: boolean): Record<string, unknown> {
  const lower = task.language.toLowerCase();
  const key = /^zh-(tw|hk|hant)/.test(lower) ? 'zh-tw' : (lower.split('-')[0] ?? 'en');
  const phrases: Phrases = PHRASES[key] ?? ENGLISH;
  const slides = Array.from({ length: task.slides }, (_, index) => {
    const make =
      index === 0
        ? (t: string) => phrases.hook(task.slides, t)
        : index === task.slides - 1
          ? phrases.close
          : (t: string) => phrases.tip(index, t);
    const slide: Record<string, unknown> = { index, caption: fitTopic(make, task.topic, task.maxWidth) };
    if (withImagePrompts) {
      const scene = SCENES[(index + task.topic.length) % SCENES.length] as string;
      slide.imagePrompt = `A bright editorial photo about ${shorten(task.topic, 120)}: ${scene}, natural light, vertical composition, no text, no letters.`;
    }
    return slide;
  });
  return { caption: `${phrases.post(shorten(task.topic, 200))} #tips #learnontiktok`, slides };
}

/** The widest version of `make(topic)` within `maxWidth`: the topic loses words, then characters. */
function fitTopic(make: (topic: string) => string, topic: string, maxWidth: number): string {
  if (width(make(topic)) <= maxWidth) return make(topic);
  const chars = [...topic];
  for (let keep = chars.length - 1; keep > 0; keep--) {
    const cut =
      chars
        .slice(0, keep)
        .join('')
        .replace(/\s+\S*$/, '') || chars.slice(0, keep).join('');
    const text = make(`${cut.trim()}…`);
    if (width(text) <= maxWidth) return text;
  }
  return [...make('')].slice(0, maxWidth).join('');
}

/** At most `max` characters, cut by code point so an emoji is never split into a lone surrogate. */
export function shorten(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

/** Display width: East Asian wide characters count 2. */
export function width(text: string): number {
  let total = 0;
  for (const char of text) total += WIDE.test(char) ? 2 : 1;
  return total;
}
