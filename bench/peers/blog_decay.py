#!/usr/bin/python3
"""The long-range decay script of a Chinese blog post on RoPE ("ROPE 阅读苏神博客有感", section "(4) 远程衰减"),
reproduced faithfully to
time it against `rope decay --base 10000 --dim 128 --png out.png` (compare.py, docs/performance.md).

Only two changes, both needed to run it unattended: matplotlib's Agg backend, and plt.savefig(PNG)
instead of plt.show(). The loops, the 1000 points of np.linspace(0, 256, 1000), the figure size and
the labels are the post's. (Its Chinese labels need a CJK font; without one matplotlib draws boxes
and warns, as it would for the post's reader.)

    blog_decay.py OUT.png
"""
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

warnings.filterwarnings("ignore", message="Glyph")  # missing-CJK-glyph warnings, one per character

# 定义参数
d = 128


# 定义Theta函数
def theta(t):
    return 10000 **(-2 * t / d)


# 定义f(m)函数
def f(m):
    total = 0.0
    # 外循环,j从0到d/2 - 1
    for j in range(int(d/2)):
        # 内循环,i从0到j
        inner_sum = 0.0j  # 使用复数类型
        for i in range(j + 1):
            inner_sum += np.exp(1j * m * theta(i))
        # 计算复数的模并累加到总和
        total += np.abs(inner_sum)
    # 除以d/2并返回结果
    return total / (d/2)


# 生成m的取值范围
m_values = np.linspace(0, 256, 1000)  # 使用1000个点以获得平滑曲线

# 计算每个m对应的f(m)值
f_values = [f(m) for m in m_values]

# 绘制图像
plt.figure(figsize=(10, 6))
plt.plot(m_values, f_values)
plt.xlabel('相对距离')  # 设置x轴标签
plt.ylabel('相对大小')  # 设置y轴标签
plt.title('f(m)的图像')
plt.grid(True)
plt.savefig(sys.argv[1])
