// A team's own workflow that runs agent turns as child workflows: a draft, then a review of it.
// The workflows file must also export ours, so one worker runs both.
import { executeChild, workflowInfo } from '@temporalio/workflow';
import { agentTurn } from 'durable-agent/workflow';

export * from 'durable-agent/workflow';

export async function draftThenReview(workspace: string): Promise<{ draft: string; review: string }> {
  const id = workflowInfo().workflowId;
  const draft = await executeChild(agentTurn, {
    workflowId: `${id}-draft`,
    args: [{ task: 'Write NOTES.md: three lines on durable agents.', workspace }],
  });
  const review = await executeChild(agentTurn, {
    workflowId: `${id}-review`,
    args: [
      {
        task: `Review NOTES.md and answer with one improvement. The writer said: ${draft.answer ?? '(nothing)'}`,
        workspace,
        tools: ['read_file'],
      },
    ],
  });
  return { draft: draft.answer ?? '', review: review.answer ?? '' };
}
