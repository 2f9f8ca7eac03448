/**
 * Collects a command's output within a byte budget, keeping its beginning and its end (where
 * errors and summaries usually are) and counting what was dropped between them.
 */
export class HeadTailBuffer {
  readonly #headMax: number;
  readonly #tailMax: number;
  #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #dropped = 0;

  constructor(readonly cap: number) {
    this.#headMax = Math.floor(cap / 4);
    this.#tailMax = cap - this.#headMax;
  }

  push(chunk: Buffer): void {
    let b = chunk;
    if (this.#headBytes < this.#headMax) {
      const take = b.subarray(0, this.#headMax - this.#headBytes);
      this.#head.push(take);
      this.#headBytes += take.length;
      b = b.subarray(take.length);
    }
    if (!b.length) return;
    this.#tail.push(b);
    this.#tailBytes += b.length;
    while (this.#tailBytes > this.#tailMax) {
      const first = this.#tail[0]!;
      const over = this.#tailBytes - this.#tailMax;
      if (first.length <= over) {
        this.#tail.shift();
        this.#tailBytes -= first.length;
        this.#dropped += first.length;
      } else {
        this.#tail[0] = first.subarray(over);
        this.#tailBytes -= over;
        this.#dropped += over;
      }
    }
  }

  get dropped(): number {
    return this.#dropped;
  }

  text(): string {
    const head = Buffer.concat(this.#head).toString('utf8');
    const tail = Buffer.concat(this.#tail).toString('utf8');
    if (!this.#dropped) return head + tail;
    return `${head}\n…[${this.#dropped} bytes of output dropped here; the first and last ${this.cap} bytes are kept]…\n${tail}`;
  }
}
