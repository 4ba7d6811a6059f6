// Sounds made in the page with Web Audio (no downloaded assets), and the turn's buzz, all under the
// mute toggle.

let context = null;
let idle = null;
// The longest sound (the fanfare) is over within a second. Then the context is suspended: a
// running one keeps the audio output open, and a phone's audio hardware awake, between sounds.
const IDLE_MS = 1500;

function audio() {
  if (!context) {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    context = new Context();
  }
  return context;
}

function tone(ctx, freq, start, length, volume = 0.08, type = "sine") {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(volume, start + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.05);
}

function play(fn) {
  try {
    const ctx = audio();
    if (!ctx) return;
    // Always asked, even if it says running: a suspend still under way is undone (the two are
    // carried out in the order asked). Sounds scheduled meanwhile start when it runs.
    ctx.resume().catch(() => {});
    fn(ctx, ctx.currentTime);
    window.clearTimeout(idle);
    idle = window.setTimeout(() => ctx.suspend().catch(() => {}), IDLE_MS);
  } catch {
    /* no audio: the title, the banner and the feed still say it */
  }
}

/** Two rising notes: it is your turn. */
export function chime() {
  play((ctx, now) => [660, 880].forEach((freq, i) => tone(ctx, freq, now + i * 0.12, 0.25)));
}

/** A short buzz with the chime where the device vibrates: a phone whose ringer is off still feels its turn. */
export function buzz() {
  try {
    navigator.vibrate?.([70, 60, 70]);
  } catch {
    /* no vibration: the chime and the title still say it */
  }
}

/** Dice rattling on the felt: a few short clicks of filtered noise. */
export function rattle(count = 5) {
  play((ctx, now) => {
    const length = Math.floor(ctx.sampleRate * 0.03);
    const buffer = ctx.createBuffer(1, length, ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / length) ** 3;
    const hits = Math.max(3, Math.min(count + 2, 7));
    for (let i = 0; i < hits; i++) {
      const source = ctx.createBufferSource();
      source.buffer = buffer;
      source.playbackRate.value = 0.7 + Math.random() * 0.6;
      const filter = ctx.createBiquadFilter();
      filter.type = "bandpass";
      filter.frequency.value = 1800 + Math.random() * 1600;
      const gain = ctx.createGain();
      gain.gain.value = 0.35 * (1 - i / (hits + 2));
      source.connect(filter).connect(gain).connect(ctx.destination);
      source.start(now + i * 0.055 + Math.random() * 0.02);
    }
  });
}

/** A Yahtzee: a quick rising arpeggio. */
export function fanfare() {
  play((ctx, now) => [523, 659, 784, 1047].forEach((freq, i) => tone(ctx, freq, now + i * 0.09, 0.3 + (i === 3 ? 0.3 : 0), 0.09, "triangle")));
}
