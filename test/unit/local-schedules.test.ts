import { describe, expect, it } from 'vitest';
import { scheduledEvent, startSchedule } from '../../local/schedules';

describe('startSchedule', () => {
  it('runs once at start, then on every interval, and stop() waits for the run in progress', async () => {
    // Prepare
    let runs = 0;
    let running = false;
    const task = async (): Promise<void> => {
      running = true;
      runs += 1;
      await new Promise((r) => setTimeout(r, 30));
      running = false;
    };

    // Act
    const schedule = startSchedule('test', task, 50);
    await new Promise((r) => setTimeout(r, 5));
    const runsAtStart = runs;
    await new Promise((r) => setTimeout(r, 140));
    await schedule.stop();

    // Assess
    expect(runsAtStart).toBe(1);
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(running).toBe(false);
  });

  it('keeps going after a failing run', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const schedule = startSchedule('failing', async () => {
      runs += 1;
      throw new Error('boom');
    }, 20, (err) => errors.push(err));

    await new Promise((r) => setTimeout(r, 70));
    await schedule.stop();

    expect(runs).toBeGreaterThanOrEqual(2);
    expect(errors.length).toBe(runs);
  });
});

describe('scheduledEvent', () => {
  it('looks like an EventBridge scheduled event', () => {
    const event = scheduledEvent('hookgate-sweeper', new Date('2025-01-02T03:04:05.678Z'));

    expect(event).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      time: '2025-01-02T03:04:05Z',
      resources: ['arn:aws:events:us-east-1:123456789012:rule/hookgate-sweeper'],
      detail: {},
    });
  });
});
