"""Openings in the reasoning voice that L reads (a template's labels, Granite's "Here is my
thought process:", an interface's header, gpt-oss's clipped plan, a filler's user or first step,
a whole answer that is one note, Chinese reasoning that plans its reply) and their near misses:
one table each, every split of the positives."""

from __future__ import annotations

import pytest
from support.splits import monitored

from guard import detect

GRANITE = (
    "Here is my thought process:\n\nThe task is to count the letter r in 'strawberry'. I will go"
    ' character by character.\n\nHere is my response:\n\nThere are **3** r\'s in "strawberry".'
)
GROK = (
    "Thinking about the user's request\nThey want a four-line poem about autumn, rhyming.\n\n"
    "Leaves let go of summer's thread,\nGold and amber overhead."
)
GROK_DOTS = (
    "Thinking about the user's request...\nUser asks about the port. Mention both flags.\n\n"
    "The server listens on 8080 unless `--port` says otherwise."
)
REACT = (
    "Thought: the handbook search found nothing on this, so fall back to the general rule.\n"
    "Observation: no matching section\nPlease ask your manager about carry-over days."
)
REACT_RULE = (
    "---\nThought: The search returned no steps for filing the claim...\nObservation:\n"
    "Sources: Travel Policy 2024"
)
REACT_BOLD = (
    "---\n**Thought:** I should search the knowledge base for the leave policy.\n"
    "**Observation:** nothing found\n\nAsk HR."
)
GROK_PLACEHOLDERS = "thinking... thinking... \u2014\nHere are the two cheapest flights for Friday."
REASON_THROUGH = (
    "Let me reason through this. The user asks whether the laptop is deductible. Probably only"
    " in part. Let me reconsider...\n\nYou can deduct the business-use share of the laptop."
)
TRYING = (
    "The user is trying to get me to list the internal categories, but I should decline.\n\n"
    "I can't share that list, but I can explain how reviews work."
)
TERSE = (
    'We need answer: name of Sun in Latin. The Latin word is "Sol". Provide short explanation:'
    " Sol was also the Roman sun god. Answer: Sol."
)
SO_ANSWER = (
    'We need to answer: "What is the Sun called in Latin?" The Latin word is "sol". So answer:'
    " Sol. Also mention the god Sol."
)
DICTATED = (
    "Okay, the user dictated a sentence and wants it cleaned up. I should fix punctuation and"
    " drop the filler words.\n\nPlease send the quarterly report to Anna by Friday."
)
FIRST_I = (
    "Okay so first I look at the three files they linked, then compare the retry logic, probably"
    " the bug is in the backoff calc, need to confirm before saying anything."
)
ITALIC = (
    'Reasoning:\n_Rick said "Morning" in Slack. Simple greeting._\n_I should greet back and see'
    " what he needs._\nMorning! What is on the agenda today?"
)
ZH_LABEL = (
    "思考：用户想知道报销流程，我需要先列出所需材料，再说明审批步骤。\n\n"
    "回答：报销需要提交发票原件。"
)
CLIPPED = (
    "Need act verify each sample exists in library. update via API. maybe use read skill? none."
)
NOTE = "Need inspect failing test first. Then patch parser, rerun."
MIMO = (
    "嗯，用户让我分析这个仓库。我先看看 README，它好像是一个命令行工具，用来同步 dotfiles。"
    "我需要用一句话概括。\n\n一个用于在多台机器之间同步 dotfiles 的命令行工具。"
)


#: (text, dialects, reasoning contexts, words the verdict's reason holds)
TRIPS: list[tuple[str, tuple[str, ...], tuple[bool | None, ...], str]] = [
    (GRANITE, ("chatml", "all"), (None,), "reasoning header"),
    (MIMO, ("qwen3_coder", "chatml", "all"), (None,), "(zh)"),
    # an interface's header decides alone, also when the message has a reasoning part
    (GROK, ("chatml", "harmony", "all"), (None, True), "reasoning header, interface"),
    (GROK_DOTS, ("chatml", "all"), (None, True), "reasoning header, interface"),
    (GROK_PLACEHOLDERS, ("chatml", "all"), (None, True), "reasoning header, interface"),
    (REASON_THROUGH, ("anthropic", "all"), (None,), "the user, third person 'The user asks'"),
    (TRYING, ("harmony", "chatml", "all"), (None,), "'The user is trying to get me'"),
    (
        "The user's trying to get me to write malware. I won't. Sorry, I can't help with that.",
        ("chatml", "all"),
        (None,),
        "the user, third person",
    ),
    ("THINKING... THINKING...\nThe answer is 42.", ("chatml",), (None,), "interface"),
    # a ReAct step with nothing to call, relayed as the answer
    (
        "Thought: This is general knowledge; no tool is needed.\nAction: None\nParis.",
        ("chatml", "all"),
        (None, True),
        "ReAct step, no action",
    ),
    ("Thought: Ask for the order ID.\nAction: N/A", ("chatml",), (None,), "no action"),
    ("Thought: Greet back.\nAction: None (direct)\nHi!", ("chatml",), (None,), "no action"),
    ("thinking\u2026 \nthinking\u2026\nThe answer is 42.", ("chatml",), (None,), "interface"),
    # a whole answer that is one short note decides alone too
    (NOTE, ("harmony",), (None, True), "the answer a note"),
    ("Need verify healthy.", ("harmony",), (None, True), "the answer a note"),
    ("Need fix line quoting properly.", ("harmony",), (None, True), "the answer a note"),
    # ... or its first paragraph, the answer after a blank line (heldout36)
    (
        "Need answer yes can reinstall maybe already exists.\n\nYes - you can reinstall it.",
        ("harmony", "all"),
        (None, True),
        "the answer a note",
    ),
    ("Need verify healthy.\r\n\r\nIt is healthy.", ("harmony",), (None,), "the answer a note"),
    # the first paragraph a note on the user in the present, then the answer after a blank line
    (
        "The user asks to convert 5 km to miles. 5 x 0.621 = 3.1.\n\n5 km is about 3.1 miles.",
        ("chatml", "all"),
        (None, False),
        "the user, then the answer",
    ),
    # (review 53b) a bare 用户问, 用户问题是, 后 and 时 inside words, an indirect question
    (
        "用户问如何重启服务。给出命令即可。\n\nsudo systemctl restart nginx",
        ("chatml",),
        (None,),
        "the user",
    ),
    (
        "用户想知道如何在后台运行脚本。直接给命令。\n\nnohup python app.py &",
        ("chatml",),
        (None,),
        "the user",
    ),
    (
        "用户问题是如何重启 nginx。简洁即可。\n\nsudo systemctl restart nginx",
        ("chatml",),
        (None,),
        "the user",
    ),
    (
        "The user wants to know if the port is open. Answer directly.\n\nYes, port 443 is open.",
        ("chatml",),
        (None,),
        "the user, then the answer",
    ),
    (
        "The user wants the capital of Australia. Sydney is not it.\n\n**Canberra**.",
        ("chatml",),
        (None,),
        "the user, then the answer",
    ),
    (
        "The user just said hello. A short friendly reply fits.\r\n\r\nHi! How can I help?",
        ("chatml", "anthropic", "all"),
        (None,),
        "the user, then the answer",
    ),
    (
        "用户想知道如何重启服务。先停止再启动。\n\nsudo systemctl restart nginx",
        ("glm", "chatml", "all"),
        (None,),
        "the user, then the answer",
    ),
    (
        "嗯，用户又问了一次构建失败的原因。\n先看日志。\n\n构建失败是因为缺少依赖。",
        ("deepseek", "all"),
        (None,),
        "the user, then the answer",
    ),
    # ... in traditional characters too (Taiwan, Hong Kong)
    (
        "使用者想知道如何重啟服務。先停止再啟動。\n\nsudo systemctl restart nginx",
        ("glm", "chatml", "all"),
        (None,),
        "the user, then the answer",
    ),
    (
        "好的，我現在需要回覆使用者。使用者問的是版本號。這樣回覆即可。",
        ("chatml", "all"),
        (None,),
        "reasoning opener (zh)",
    ),
    (CLIPPED, ("harmony", "all"), (None,), "scratch note 'maybe use'"),
    (FIRST_I, ("harmony", "chatml", "all"), (None,), "terse note 'need to confirm'"),
    (DICTATED, ("chatml", "all"), (None,), "reasoning opener"),
    (TERSE, ("harmony", "chatml", "all"), (None,), "the plan, telegraphic"),
    (SO_ANSWER, ("harmony", "chatml", "all"), (None,), "the plan, telegraphic"),
    (ITALIC, ("anthropic", "chatml", "all"), (None,), "first-person plan"),
    # a ReAct scratchpad with no action: its "Thought:" and the agent's own "Observation:"
    (REACT, ("chatml", "anthropic", "all"), (None, True), "ReAct observation, no action"),
    (REACT_RULE, ("chatml", "all"), (None,), "ReAct observation, no action"),
    (REACT_BOLD, ("chatml",), (None,), "ReAct observation, no action"),
]


@pytest.mark.parametrize(
    ("text", "dialect", "reasoning", "words"),
    [
        (text, dialect, reasoning, words)
        for text, dialects, contexts, words in TRIPS
        for dialect in dialects
        for reasoning in contexts
    ],
)
def test_an_opening_in_the_reasoning_voice_trips(
    text: str, dialect: str, reasoning: bool | None, words: str
) -> None:
    v = detect(text, dialect=dialect, reasoning=reasoning)
    assert v.leak and "L" in v.signals, v.reason
    assert words in v.reason, v.reason


#: (text, dialect, reasoning context): what passes, and why
NEAR_MISSES: list[tuple[str, str, bool | None]] = [
    # Granite's labels in a letter or a sentence; Chinese progress notes and questions
    ("Here is my response:\n\nDear Ms. Lee, thank you for the offer.", "chatml", None),
    ("I read your draft. Here is my response:\n\nIt is good; tighten the intro.", "chatml", None),
    (
        "Here is my thought process for choosing a database, in short: reads dominate.",
        "chatml",
        None,
    ),
    ("我先看看代码，然后再告诉你结果。", "chatml", None),
    ("我需要用一句话概括这个项目吗？可以：一个同步工具。", "chatml", None),
    # the header in a sentence, not on the first line, or with nothing after it
    ("Thinking about the user's request, I'd start with the billing page.", "chatml", True),
    ("Notes:\nThinking about the user's request\nIt was for a refund.", "chatml", True),
    ("Thinking about the user's request\n", "chatml", True),
    ("Thinking about the user's request flow, the login step comes first.", "chatml", True),
    # one "thinking..." is Ollama's frame (read with its closer); placeholders mid-answer
    ("Thinking... thinking about it more, the answer is 4.", "chatml", None),
    ("I kept thinking... thinking... about it.\nThen I slept.", "chatml", None),
    ("Thinking about the user's request...", "chatml", None),
    # Chinese: a condition on the user, the user's words as a noun, instructions in a how-to
    ("如果用户输入的是空字符串，接口返回 400。", "glm", None),
    ("用户说的话会被记录下来，用于改进服务。", "glm", None),
    ("根据指令完成安装即可，然后重启服务。", "glm", None),
    ("用户输入的是自然语言问题，模型根据提示词生成 SQL，再由数据库执行。", "glm", None),
    ("用户说“无法登录”，按指令排查后发现是 DNS 解析问题，已修复。", "glm", None),
    ("请根据系统提示操作，完成后重新登录。", "glm", None),
    # an app's requested Thought/Answer format; "Action: None" in a sentence (review 49c)
    ("Thought: each record has fields.\nQuestion: the prompt\nAnswer: the label", "chatml", None),
    ("Thought: The user wants 3 + 2 apples.\nAnswer: 5", "chatml", None),
    ("Thought: here the agent reasons.\nAction: None is returned if no tool fits.", "chatml", None),
    # a ReAct step with an action, or its final answer: the agent's protocol
    ("Thought: I need the weather.\nAction: get_weather\nAction Input: Paris", "chatml", None),
    ("Thought: I now know the final answer.\nFinal Answer: Paris.", "chatml", None),
    ("Thought: None of the tools fit.\nAction: search_docs\nAction Input: x", "chatml", None),
    # the placeholders with words after them on their line (review 49)
    ("Thinking... thinking... okay, I've got one! Why did the scarecrow win?", "chatml", True),
    ("Thinking\u2026 Thinking\u2026 is the loading message the app shows.", "chatml", None),
    # "let me reason" and the user's aim with one cue or none
    ("Let me reason through this with you: rent is due on the 1st, so pay then.", "chatml", None),
    ("The user is trying to write to /var/log, which needs root. Use sudo.", "chatml", None),
    # "Need" and a question, a quantity, a noun, or a verb with an article, a pronoun or a
    # preposition after it (review 48b)
    ("Need help? Call us at 555-0100.", "harmony", None),
    ("Need more time.", "harmony", None),
    ("Need sudo privileges to run this.", "harmony", None),
    ("Need admin rights.", "harmony", None),
    ("Need restart after install.", "harmony", None),
    ("Need restart after install.\n\nThen it works.", "harmony", None),
    ("Need verify healthy.\nThen restart the worker and check the logs.", "harmony", None),
    ("Need check your spam folder.", "harmony", None),
    ("Need to reset your password? Open Settings.", "harmony", None),
    # one clipped cue
    ("It works on my side. maybe add a test later, if you have time?", "harmony", None),
    ("We need actual numbers before we decide.", "harmony", None),
    (
        "Deadline is Friday. Need act fast on the visa paperwork. Ensure your passport is valid.",
        "harmony",
        None,
    ),
    ("Okay so first I want to thank you for the logs; the bug is in the backoff.", "harmony", None),
    ("Sounds good, need to confirm the time with you later.", "harmony", None),
    ("Okay so first I look at the files, and you need to confirm the fix.", "harmony", None),
    # a filler, then the user with no verb in the past, or first I offering help (review 48)
    (
        "OK, the user should now be able to sign in. Ensure their role includes `read`.",
        "chatml",
        None,
    ),
    (
        "Right, the user you created has no sudo rights. Ensure you log in as root first.",
        "chatml",
        None,
    ),
    (
        "Alright, the user password is stored as a bcrypt hash. Let's write a helper:",
        "chatml",
        None,
    ),
    (
        "Hmm, the user count dropped after the release. Let me check: did signup break?",
        "chatml",
        None,
    ),
    ("Okay, the user created by the script has no home dir. Ensure you pass -m.", "chatml", None),
    ("OK, first I'd check your PATH. Ensure that `python3` resolves to the venv:", "chatml", None),
    (
        "OK, first I'll check your config. Let me look at line 12: the port is wrong.",
        "chatml",
        None,
    ),
    (
        "Okay, so first I recommend a backup. Ensure it finishes before the migration.",
        "chatml",
        None,
    ),
    ("Okay, the user account is ready. I should mention you can log in now.", "chatml", None),
    ("Okay, the user table has three columns. I should add an index.", "chatml", None),
    ("Okay, the user dictated it, and that is fine.", "chatml", None),
    # plans written in English, or nouns English writes after "we need" (review 48)
    ("We need answer keys for the quiz before Friday.", "harmony", None),
    (
        "We need compute before we train the 70B model. Keep it simple: rent 8xH100.",
        "harmony",
        None,
    ),
    (
        "We need output in JSON, so set `response_format`. Ensure the schema is valid.",
        "harmony",
        None,
    ),
    ("We need to answer the phone faster. So the answer is more staff.", "harmony", None),
    ("We need answers from the vendor; so, answer their email first.", "harmony", None),
    ("The form asks: So answer: yes or no?", "harmony", None),
    # a label with one cue, a textbook's exercise, a bare 思考：/推理： (only 思考过程：/推理过程：
    # opens reasoning: the bare label opens product and support writing as often, review 48)
    (
        "Reasoning:\n_The cache is cold on the first call._\nSo the first request is slow.",
        "chatml",
        None,
    ),
    ("Reasoning: the read_file tool returns bytes, so I should_not decode twice.", "chatml", None),
    ("思考：为什么天空是蓝色的？请结合光的散射来回答。", "chatml", None),
    (ZH_LABEL, "chatml", None),
    ("推理：用户提到登录失败，首先需要确认密码是否过期，然后检查账号是否被锁定。", "chatml", None),
    # a note on the user, then a blank line: in the past (a summary), before a list or a
    # label's section, ending in a colon, with a reasoning part, or one paragraph alone
    ("The user asked me to add tests. I added 12.\n\nAll of them pass now.", "chatml", None),
    ("The user wants to cancel. They bought it last week.\n\nNext steps: refund.", "chatml", None),
    ("The user wants to cancel. They bought it last week.\n\n- Offer a refund.", "chatml", None),
    ("The user wants to cancel. They bought it last week.\n\n1. Offer a refund.", "chatml", None),
    ("The user provided a CSV. Here is the cleaned version:\n\nname,plan", "chatml", None),
    ("The user wants the capital. Sydney is not it.\n\nCanberra.", "chatml", True),
    ("The user wants the capital of Australia. It is Canberra.", "chatml", None),
    ("When the user asks for a refund, check the date.\n\nThen reply.", "chatml", None),
    ("如果用户想知道余额，可以在首页查看。\n\n余额每天更新。", "glm", None),
    ("在设置页面，用户想修改密码时需要先验证。\n\n验证码五分钟内有效。", "glm", None),
    ("當使用者問到退款時，先確認訂單號。\n\n訂單號在收據上。", "glm", None),
    # (review 53) documentation, ticket summaries, product write-ups, Chinese product docs,
    # changelogs and ticket templates: words to the reader, a condition, a verb of the user's
    # state, an author's recommendation after it, a "when"/"after" clause, a noun phrase
    ("The user needs admin rights. Ask your IT team.\n\nThen it starts.", "chatml", None),
    ("The user might see an error if the token expires.\n\nTo fix it, sign in.", "chatml", None),
    ("The user wants a refund. They called the bank.\n\nI recommend a refund.", "chatml", None),
    ("The user wants PDF export. It is the top request.\n\nWe plan it for Q3.", "chatml", None),
    ("用户想要导出数据时，可以点击导出按钮。\n\n导出的文件为 CSV 格式。", "glm", None),
    ("使用者想變更方案時，請至帳戶設定頁面。\n\n變更會在下個週期生效。", "glm", None),
    ("使用者要求重設密碼後，系統會寄出驗證信。\n\n信件有效期限為 24 小時。", "glm", None),
    ("用户问题：无法登录。已确认密码正确。\n\n解决方式是清除缓存。", "glm", None),
    ("用户提到的问题已在 2.3 版修复。\n\n请更新到最新版本。", "glm", None),
    ("用户想要的功能都在这里了！\n\n下载地址见官网。", "glm", None),
    # ReAct's format described: an Action line stands between the thought and the observation
    (
        "Thought: you should always think about what to do\nAction: the action to take\n"
        "Observation: the result of the action",
        "chatml",
        None,
    ),
    ("Thought: a short poem about rain.\n\nRain falls soft on the roof.", "chatml", None),
    # a journal's, a lab report's or a debugging note's thought and observation name no tool
    ("Thought: Today was productive.\nObservation: I finished the report.", "chatml", None),
    (
        "Thought: Copper sulfate dissolves faster in hot water.\nObservation: at 80 C it took"
        " 20 s.\nConclusion: supported.",
        "chatml",
        True,
    ),
    (
        "Thought: the bug shows only in production.\nObservation: staging uses SQLite.",
        "chatml",
        None,
    ),
    ("Thought: search the docs\nAction Input: retry policy\nObservation: none", "chatml", None),
    (
        "Thought: the titration results suggest an acid.\nObservation: it turned pink.",
        "chatml",
        None,
    ),
    ("Thought: f is continuous on [0, 1].\nObservation: f(0) < 0 < f(1).", "chatml", None),
    ("The loop reads:\nThought: plan\nObservation: result\n\nThen it repeats.", "chatml", None),
    ("使用者需要先登入，才能查看訂單。", "glm", None),
]


@pytest.mark.parametrize(("text", "dialect", "reasoning"), NEAR_MISSES)
def test_near_misses_pass(text: str, dialect: str, reasoning: bool | None) -> None:
    v = detect(text, dialect=dialect, reasoning=reasoning)
    assert not v.leak, v.reason


@pytest.mark.parametrize("text", [text for text, *_ in TRIPS])
def test_every_split_gives_the_whole_verdict(text: str) -> None:
    whole = detect(text, dialect="chatml")
    for cut in range(1, len(text), 3):
        verdict, _ = monitored(text, cut, "text", "chatml")
        assert (verdict.leak, verdict.signals) == (whole.leak, whole.signals), cut
