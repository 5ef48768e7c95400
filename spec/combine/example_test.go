package combine_test

import (
	"fmt"
	"strings"

	"github.com/nlutest/nlutest/spec/combine"
)

// The template of the IAO corpus-factory write-up §4.1.3, {查询操作}{手机号11位}的{伴随关系}人员,
// under the default strategy: five cases, one per value of the largest slot,
// every value of every slot used at least once.
func ExampleUniq() {
	slots := [][]string{
		{"查询", "搜索", "查一下"},
		{"13301791708", "13912345678", "18600001111", "15088886666", "17722223333"},
		{"酒店同房间", "同行", "同乘航班", "同住"},
	}
	sizes := []int{len(slots[0]), len(slots[1]), len(slots[2])}
	err := combine.Uniq(sizes, 2024, func(t []int) bool {
		fmt.Printf("%s%s的%s人员\n", slots[0][t[0]], slots[1][t[1]], slots[2][t[2]])
		return true
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 查询13301791708的酒店同房间人员
	// 查一下13912345678的同乘航班人员
	// 搜索18600001111的同行人员
	// 搜索15088886666的同住人员
	// 查询17722223333的酒店同房间人员
}

// Pairwise covers every pair of values of any two slots; Count says how
// many cases that takes before generating them.
func ExamplePairwise() {
	slots := [][]string{
		{"北京", "上海", "广州"},
		{"今天", "明天", "后天"},
		{"天气", "气温", "空气质量"},
		{"怎么样", "如何", "好不好"},
	}
	sizes := make([]int, len(slots))
	for i, s := range slots {
		sizes[i] = len(s)
	}
	n, _ := combine.Count(combine.StrategyPairwise, sizes, 0, 0)
	total, _ := combine.Count(combine.StrategyProduct, sizes, 0, 0)
	fmt.Printf("%d cases instead of %d\n", n, total)
	_ = combine.Pairwise(sizes, 7, func(t []int) bool {
		words := make([]string, len(t))
		for i, v := range t {
			words[i] = slots[i][v]
		}
		fmt.Println(strings.Join(words, ""))
		return true
	})
	// Output:
	// 9 cases instead of 81
	// 上海后天天气好不好
	// 上海今天空气质量怎么样
	// 上海明天气温如何
	// 广州后天空气质量如何
	// 广州今天气温好不好
	// 广州明天天气怎么样
	// 北京后天气温怎么样
	// 北京今天天气如何
	// 北京明天空气质量好不好
}
